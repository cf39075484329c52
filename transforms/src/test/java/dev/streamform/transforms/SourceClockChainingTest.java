package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.runners.flink.FlinkJobGraphs;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * On the Flink runner the clock's keying by partition runs in the task of the step before it, so an
 * event crosses the network once on its way to the clock (the shuffle by partition), not twice. A
 * {@code Flatten} in front of a step gives that step two inputs, and Flink chains no operator with
 * more than one input: keying after the flatten with the partition-start markers made the keying a
 * task of its own, which received every event over the network, decoded it, and encoded it again
 * for the shuffle (issue 31; docs/benchmarks.md).
 */
class SourceClockChainingTest {
  private static final Schema SCHEMA = Schema.builder().addInt64Field("id").build();

  @Test
  void theKeyingByPartitionRunsInTheTaskOfTheStepBeforeTheClock() {
    Pipeline p = FlinkParityTest.flinkPipeline();
    PCollection<Envelope> events =
        p.apply("Read", Create.empty(EnvelopeCoder.of(SCHEMA)))
            .apply("Events", MapElements.into(TypeDescriptor.of(Envelope.class)).via(e -> e))
            .setCoder(EnvelopeCoder.of(SCHEMA));
    events.apply(
        "Clock",
        SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
            .droppingLateEvents()
            .withPartitions(List.of(0, 1)));

    List<String> tasks = new ArrayList<>();
    for (JobVertex v : FlinkJobGraphs.of(p).getVertices()) {
      tasks.add(v.getName());
    }
    List<String> keyingWithEvents = new ArrayList<>();
    List<String> keyingAlone = new ArrayList<>();
    for (String task : tasks) {
      if (task.contains("Clock/ByPartition")) {
        (task.contains("Events") ? keyingWithEvents : keyingAlone).add(task);
      }
    }
    assertThat(String.join("\n", tasks), keyingAlone, equalTo(List.of()));
    assertThat(String.join("\n", tasks), keyingWithEvents.size(), equalTo(1));
    // and the clock itself is still one task, after the shuffle
    List<String> judges = new ArrayList<>();
    for (String task : tasks) {
      if (task.contains("Clock/Judge")) {
        judges.add(task.substring(0, task.indexOf("Clock/Judge") + "Clock/Judge".length()));
      }
    }
    assertThat(String.join("\n", tasks), judges, contains("Clock/Judge"));
  }
}
