package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamformMetrics#perBundle}: what a step counts reaches the job's metrics at each
 * bundle's end, and a counter exists in them exactly when the step moved it — also when its moves
 * add up to nothing (a key inserted and expired in one bundle leaves {@code keys_live} at 0, not
 * absent), and not when it was never moved (ADR 0173).
 */
class BundleCounterTest {
  private static final String NET = "bundle_counter_test_net";
  private static final String UP = "bundle_counter_test_up";
  private static final String NEVER = "bundle_counter_test_never";

  /** Per element: {@code NET} up and down again, {@code UP} up twice; {@code NEVER} untouched. */
  private static final class Counting extends DoFn<Integer, Integer> {
    private final StreamformMetrics.BundleCounter net = StreamformMetrics.perBundle(NET);
    private final StreamformMetrics.BundleCounter up = StreamformMetrics.perBundle(UP);
    private final StreamformMetrics.BundleCounter never = StreamformMetrics.perBundle(NEVER);

    @ProcessElement
    public void process(@Element Integer n) {
      net.inc();
      net.dec();
      up.inc(2);
    }

    @FinishBundle
    public void reportCounts() {
      StreamformMetrics.BundleCounter.flush(net, up, never);
    }
  }

  @Test
  void countsReachTheJobAndACounterMovedToNothingIsZeroWhileOneNeverMovedIsAbsent() {
    Pipeline p = SeedStreams.pipeline();
    p.apply(Create.of(1, 2, 3, 4, 5)).apply(ParDo.of(new Counting()));
    PipelineResult result = p.run();
    result.waitUntilFinish();

    assertEquals(10L, Scenario.counter(result, UP));
    assertEquals(0L, Scenario.counter(result, NET));
    AssertionError absent =
        assertThrows(AssertionError.class, () -> Scenario.counter(result, NEVER));
    assertEquals(
        "no counter streamform/"
            + NEVER
            + " in the pipeline's metrics (a misspelt name, or no step"
            + " ever moved it)",
        absent.getMessage());
  }
}
