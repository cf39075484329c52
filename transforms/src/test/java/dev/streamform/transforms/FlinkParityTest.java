package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/semantics.md §7 on the Flink runner: every scenario of {@link Scenarios} (the seed's
 * results, a multi-partition log, a reordered partition with a duplicate, quarantine) on an
 * embedded Flink 1.19 cluster at parallelism 2 in streaming mode, five times, gives exactly the
 * outputs the DirectRunner gives. Outputs leave through a file sink (one file per DoFn instance,
 * flushed per element) and are compared as sorted lines.
 */
class FlinkParityTest {
  static final int RUNS = 5;

  static Pipeline flinkPipeline() {
    FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster("[local]");
    options.setParallelism(2);
    options.setStreaming(true);
    return Pipeline.create(options);
  }

  @Test
  void everyScenarioMatchesTheDirectRunnerAtParallelismTwoFiveTimes(@TempDir Path dir)
      throws Exception {
    Pipeline direct = SeedStreams.pipeline();
    Scenarios.addAll(direct, dir.resolve("direct"));
    direct.run().waitUntilFinish();

    List<String> differences = new ArrayList<>();
    for (int run = 1; run <= RUNS; run++) {
      Path out = dir.resolve("flink-" + run);
      Pipeline p = flinkPipeline();
      Scenarios.addAll(p, out);
      PipelineResult.State state = p.run().waitUntilFinish();
      assertThat("run " + run, state, equalTo(PipelineResult.State.DONE));
      for (Map.Entry<String, Scenarios.Case> e : Scenarios.all().entrySet()) {
        for (String output : List.of("changelog", "late", "quarantined")) {
          List<String> want =
              Scenario.readLines(dir.resolve("direct").resolve(e.getKey()).resolve(output));
          List<String> got = Scenario.readLines(out.resolve(e.getKey()).resolve(output));
          if (!want.equals(got)) {
            differences.add(
                "run "
                    + run
                    + " "
                    + e.getKey()
                    + " "
                    + output
                    + ": direct "
                    + want
                    + " flink "
                    + got);
          }
        }
      }
    }
    assertThat(String.join("\n", differences), differences, equalTo(List.of()));
  }
}
