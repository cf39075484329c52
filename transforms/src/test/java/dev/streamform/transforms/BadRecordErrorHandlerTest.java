package dev.streamform.transforms;

import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler.BadRecordErrorHandler;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: the Java API takes Beam's bad-record handler ({@code
 * withBadRecordErrorHandler(ErrorHandler<BadRecord, ?>)}), as KafkaIO and JdbcIO do: a record
 * without a usable event time and a conflicting repeat of an id reach the handler the pipeline
 * registered, each with its reason.
 */
public class BadRecordErrorHandlerTest {

  /** The handler's sink: each bad record's reason. */
  public static final class Reasons
      extends PTransform<PCollection<BadRecord>, PCollection<String>> {
    @Override
    public PCollection<String> expand(PCollection<BadRecord> bad) {
      return bad.apply(
          MapElements.into(TypeDescriptors.strings())
              .via((BadRecord b) -> b.getFailure().getDescription()));
    }
  }

  @Test
  void unusableTimesAndConflictingIdsReachTheRegisteredHandler() throws Exception {
    Pipeline p = SeedStreams.pipeline();
    BadRecordErrorHandler<PCollection<String>> bad = p.registerBadRecordErrorHandler(new Reasons());
    ClockResult clocked =
        p.apply(
                SeedStreams.testStreamOf(
                    new SeedStreams()
                        .event(0, 1, "10", Scenarios.iso("10:00:00")) // p0/0 first of id 1
                        .event(0, 1, "11", Scenarios.iso("10:00:00")) // p0/1 conflict
                        .event(0, 2, "5", "not a time") // p0/2 no usable event time
                        .items()))
            .apply(EventTimeExtraction.from("ordered_at").withBadRecordErrorHandler(bad))
            .events()
            .apply(SourceClockTest.FIVE);
    clocked
        .events()
        .apply(
            Deduplicate.byId("customer_id", Duration.standardMinutes(10))
                .withBadRecordErrorHandler(bad));
    bad.close();
    PAssert.that(bad.getOutput())
        .satisfies(
            reasons -> {
              java.util.List<String> all = new java.util.ArrayList<>();
              reasons.forEach(all::add);
              org.hamcrest.MatcherAssert.assertThat(
                  all,
                  org.hamcrest.Matchers.containsInAnyOrder(
                      org.hamcrest.Matchers.startsWith("partition 0 offset 2: "),
                      org.hamcrest.Matchers.startsWith(
                          "partition 0 offset 1: event_id `customer_id` = 1 was first seen")));
              return null;
            });
    p.run().waitUntilFinish();
  }
}
