package dev.streamform.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.StreamingOptions;
import org.junit.jupiter.api.Test;

/**
 * {@code run} on the DirectRunner uses one worker, whatever a profile says, so each key's records
 * reach an upsert topic in emission order (docs/decisions/0116; {@code
 * KafkaModelPipelineWriteOrderTest} in pipelines shows the reordering with several workers).
 */
class RunPipelineOptionsTest {
  @Test
  void aDirectRunUsesOneWorkerOverAProfilesParallelism() {
    StringWriter said = new StringWriter();
    PipelineOptions plain =
        RunCommand.pipelineOptions(RunnerChoice.direct(), true, new PrintWriter(said, true));
    assertEquals(1, plain.as(DirectOptions.class).getTargetParallelism());
    assertTrue(plain.as(StreamingOptions.class).isStreaming());
    assertEquals("", said.toString(), "nothing to say when no profile sets a parallelism");
    PipelineOptions profiled =
        RunCommand.pipelineOptions(
            RunnerChoice.direct().withBeamOptions(Map.of("targetParallelism", "4")),
            true,
            new PrintWriter(said, true));
    assertEquals(1, profiled.as(DirectOptions.class).getTargetParallelism());
    // a profile's setting is not dropped without a word
    assertEquals(
        "streamform run: targetParallelism=4 is not used: a run on the DirectRunner uses one"
            + " worker, so each key's records reach their topic in the order they were made"
            + " (docs/decisions/0116-the-directrunner-runs-a-run-on-one-worker.md)\n",
        said.toString());
  }

  /** A run that writes no topic (files in, files out) keeps the DirectRunner's workers. */
  @Test
  void aRunWritingNoTopicKeepsTheDirectRunnersWorkers() {
    StringWriter said = new StringWriter();
    PipelineOptions files =
        RunCommand.pipelineOptions(
            RunnerChoice.direct().withBeamOptions(Map.of("targetParallelism", "4")),
            false,
            new PrintWriter(said, true));
    assertEquals(4, files.as(DirectOptions.class).getTargetParallelism());
    assertEquals("", said.toString());
  }
}
