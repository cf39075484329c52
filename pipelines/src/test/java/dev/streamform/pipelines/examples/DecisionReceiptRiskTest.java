package dev.streamform.pipelines.examples;

import static org.apache.beam.sdk.values.TypeDescriptors.strings;

import dev.streamform.transforms.decisions.DecisionResult;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.junit.jupiter.api.Test;

/**
 * {@link ReceiptRisk} on its sample (delivered by {@code Create.of}, in any order: the clock
 * restores each partition's offsets), every score worked out by hand: {@code amount / (amount +
 * spend_1h)} with the features of the fixture {@code offline_uploads.yml} (its comments derive
 * them), rounded to 6 places.
 *
 * <pre>
 * 0-0 m7 100 @10:00  spend   0   1.0
 * 1-0 m7  40 @10:10  spend 100   40/140 = 0.285714   revised by 0-4: spend 160, 40/200 = 0.2
 * 0-1 m7  50 @10:20  spend 140   50/190 = 0.263158   revised: spend 200, 50/250 = 0.2
 * 1-1 m7  30 @10:30  spend 190   30/220 = 0.136364   revised: spend 250, 30/280 = 0.107143
 * 0-5 m7  15 @10:55  spend 220   15/235 = 0.06383
 * 0-2 m8  80 @10:25  spend   0   1.0                 revised by 1-4: spend 25, 80/105 = 0.761905
 * 1-2 clock skew, 1-5 (no occurred_at) malformed timestamp
 * </pre>
 */
class DecisionReceiptRiskTest {
  @Test
  void receiptsAreScoredRevisedAndDeadLettered() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    DecisionResult scored =
        p.apply(
                Create.of(ReceiptRisk.sampleReceipts())
                    .withCoder(SourceRecordCoder.of(ReceiptRisk.RECEIPTS)))
            .apply(ReceiptRisk.readingPartitions(0, 1));
    PAssert.that(
            scored
                .decisions()
                .apply("Lines", MapElements.into(strings()).via(ReceiptRisk::describe)))
        .containsInAnyOrder(
            "receipt 0-0 merchant 7: scored r1 1.0 (spend_1h 0.0)",
            "receipt 1-0 merchant 7: scored r1 0.285714 (spend_1h 100.0)",
            "receipt 0-1 merchant 7: scored r1 0.263158 (spend_1h 140.0)",
            "receipt 1-1 merchant 7: scored r1 0.136364 (spend_1h 190.0)",
            "receipt 1-0 merchant 7: revised r2 0.2 (spend_1h 160.0, revised by 0-4)",
            "receipt 0-1 merchant 7: revised r2 0.2 (spend_1h 200.0, revised by 0-4)",
            "receipt 1-1 merchant 7: revised r2 0.107143 (spend_1h 250.0, revised by 0-4)",
            "receipt 0-5 merchant 7: scored r1 0.06383 (spend_1h 220.0)",
            "receipt 0-2 merchant 8: scored r1 1.0 (spend_1h 0.0)",
            "receipt 0-2 merchant 8: revised r2 0.761905 (spend_1h 25.0, revised by 1-4)");
    PAssert.that(
            scored
                .deadLetters()
                .apply("Dead", MapElements.into(strings()).via(ReceiptRisk::describe)))
        .containsInAnyOrder("dead letter clock_skew 1-2", "dead letter malformed_timestamp");
    p.run().waitUntilFinish();
  }
}
