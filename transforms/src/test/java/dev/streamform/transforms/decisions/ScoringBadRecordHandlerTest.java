package dev.streamform.transforms.decisions;

import dev.streamform.transforms.BadRecordErrorHandlerTest;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import java.math.BigDecimal;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler.BadRecordErrorHandler;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: a scoring stage hands what it refuses to Beam's bad-record handler too: an event ahead
 * of its arrival by more than the skew bound reaches the handler with its reason, and a record
 * without a usable time reaches it from the extraction.
 */
class ScoringBadRecordHandlerTest {
  private static Row receipt(long merchant, String occurred, String received) {
    return Row.withSchema(DecisionScoringTest.RECEIPTS)
        .addValues(
            merchant,
            new BigDecimal("10"),
            occurred,
            Instant.parse("2026-08-30T" + received + ":00Z").toDateTime())
        .build();
  }

  @Test
  void aSkewedEventAndAnUnusableTimeReachTheHandler() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    BadRecordErrorHandler<PCollection<String>> bad =
        p.registerBadRecordErrorHandler(new BadRecordErrorHandlerTest.Reasons());
    Instant read = new Instant(0);
    p.apply(
            Create.of(
                    SourceRecord.of(0, 0, read, receipt(7, "2026-08-30T10:00:00Z", "10:00")),
                    SourceRecord.of(0, 1, read, receipt(7, "2026-08-30T10:36:00Z", "10:30")),
                    SourceRecord.of(0, 2, read, receipt(7, "yesterday", "10:31")))
                .withCoder(SourceRecordCoder.of(DecisionScoringTest.RECEIPTS)))
        .apply(EventTimeExtraction.from("occurred_at").withBadRecordErrorHandler(bad))
        .events()
        .apply(
            SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                .keepingLateEvents()
                .withContiguousOffsets()
                .withPartitions(0))
        .events()
        .apply(DecisionScoringTest.receiptRisk().withBadRecordErrorHandler(bad));
    bad.close();
    PAssert.that(bad.getOutput())
        .satisfies(
            reasons -> {
              java.util.List<String> all = new java.util.ArrayList<>();
              reasons.forEach(all::add);
              org.hamcrest.MatcherAssert.assertThat(
                  all,
                  org.hamcrest.Matchers.containsInAnyOrder(
                      org.hamcrest.Matchers.startsWith("partition 0 offset 1: "),
                      org.hamcrest.Matchers.startsWith("partition 0 offset 2: ")));
              return null;
            });
    p.run().waitUntilFinish();
  }
}
