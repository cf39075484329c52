package org.apache.beam.runners.flink;

import org.apache.beam.sdk.Pipeline;
import org.apache.flink.runtime.jobgraph.JobGraph;

/**
 * The Flink job graph the Flink runner would submit for a pipeline, without running it: Beam keeps
 * {@code FlinkPipelineExecutionEnvironment.getJobGraph} package-private "for testing", so this test
 * helper lives in the runner's package. Used to check how Streamform's steps are chained into tasks
 * (which of them share a thread and which exchange records over the network).
 */
public final class FlinkJobGraphs {
  private FlinkJobGraphs() {}

  /** Translates {@code pipeline} (its options must be {@link FlinkPipelineOptions}). */
  public static JobGraph of(Pipeline pipeline) {
    return new FlinkPipelineExecutionEnvironment(
            pipeline.getOptions().as(FlinkPipelineOptions.class))
        .getJobGraph(pipeline);
  }
}
