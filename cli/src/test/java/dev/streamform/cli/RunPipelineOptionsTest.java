package dev.streamform.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.teststreams.fixture.RunnerChoice;
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
    PipelineOptions plain = RunCommand.pipelineOptions(RunnerChoice.direct());
    assertEquals(1, plain.as(DirectOptions.class).getTargetParallelism());
    assertTrue(plain.as(StreamingOptions.class).isStreaming());
    PipelineOptions profiled =
        RunCommand.pipelineOptions(
            RunnerChoice.direct().withBeamOptions(Map.of("targetParallelism", "4")));
    assertEquals(1, profiled.as(DirectOptions.class).getTargetParallelism());
  }
}
