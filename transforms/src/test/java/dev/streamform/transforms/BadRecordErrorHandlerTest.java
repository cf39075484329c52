package dev.streamform.transforms;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedAggregate;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler.BadRecordErrorHandler;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

  /** Orders whose customer ids, summed per amount, pass int64 at the second (p0/1). */
  private static ClockResult idsThatOverflow(
      Pipeline p, BadRecordErrorHandler<PCollection<String>> bad) {
    return p.apply(
            SeedStreams.testStreamOf(
                new SeedStreams()
                    .event(9223372036854775806L, "1", "10:00") // p0/0
                    .event(5, "1", "10:01") // p0/1: the sum would pass int64
                    .event(-3, "1", "10:02") // p0/2
                    .items()))
        .apply(EventTimeExtraction.from("ordered_at").withBadRecordErrorHandler(bad))
        .events()
        .apply(SourceClockTest.FIVE);
  }

  private static void assertOneOverflowAtOffsetOne(PCollection<String> reasons) {
    PAssert.that(reasons)
        .containsInAnyOrder(
            "partition 0 offset 1: column `customer_id`: the int64 sum for `total` would overflow:"
                + " 9223372036854775806 + 5 is outside int64 (-9223372036854775808 to"
                + " 9223372036854775807); declare `customer_id` as decimal(38,0) in sources.yml for"
                + " larger totals (in a Java pipeline without sources.yml: a DECIMAL field of the"
                + " records' Schema)");
  }

  /**
   * ADR 0074: an event whose value would take its key's int64 sum outside int64 reaches the handler
   * the pipeline registered for the changelog; the key goes on without it.
   */
  @Test
  void anInt64SumThatWouldOverflowReachesTheChangelogsHandlerAndTheKeyGoesOn() {
    Pipeline p = SeedStreams.pipeline();
    BadRecordErrorHandler<PCollection<String>> bad = p.registerBadRecordErrorHandler(new Reasons());
    PCollection<String> totals =
        idsThatOverflow(p, bad)
            .events()
            .apply(
                KeyedChangelog.by("amount")
                    .aggregating(Aggregation.sum("customer_id").as("total"))
                    .withBadRecordErrorHandler(bad))
            .apply(
                MapElements.into(TypeDescriptors.strings())
                    .via((ChangelogRecord r) -> r.op() + " " + r.value("total")));
    bad.close();
    PAssert.that(totals)
        .containsInAnyOrder("INSERT 9223372036854775806", "UPDATE 9223372036854775803");
    assertOneOverflowAtOffsetOne(bad.getOutput());
    p.run().waitUntilFinish();
  }

  /** The same for a window: the event is in none of its windows, and the handler has it. */
  @Test
  void anInt64SumThatWouldOverflowReachesTheWindowsHandler() {
    Pipeline p = SeedStreams.pipeline();
    BadRecordErrorHandler<PCollection<String>> bad = p.registerBadRecordErrorHandler(new Reasons());
    PCollection<String> finals =
        idsThatOverflow(p, bad)
            .events()
            .apply(
                WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                    .forModel("w")
                    .by("amount")
                    .aggregating(Aggregation.sum("customer_id").as("total"))
                    .withBadRecordErrorHandler(bad))
            .revisions()
            .apply(
                MapElements.into(TypeDescriptors.strings())
                    .via((WindowRevision r) -> r.status() + " " + r.value("total")));
    bad.close();
    PAssert.that(finals)
        .containsInAnyOrder("ON_TIME 9223372036854775803", "FINAL 9223372036854775803");
    assertOneOverflowAtOffsetOne(bad.getOutput());
    p.run().waitUntilFinish();
  }

  /**
   * A value no aggregate takes (a decimal finer than decimal(38,38), which a Java author's Row may
   * hold) reaches the handler whichever way the changelog applies events, also as the first event
   * of a key with retention (42) and as the first event after a key's state expired (9): applied on
   * arrival that was a NullPointerException that stopped the pipeline, where in log order the event
   * was quarantined. Nothing is emitted for it and the key stays absent: its next event is an
   * INSERT.
   */
  @ParameterizedTest(name = "applied on arrival: {0}")
  @ValueSource(booleans = {false, true})
  void aRefusedFirstEventOfAKeyWithRetentionReachesTheHandlerOnBothPaths(boolean onArrival) {
    Pipeline p = SeedStreams.pipeline();
    BadRecordErrorHandler<PCollection<String>> bad = p.registerBadRecordErrorHandler(new Reasons());
    String unfit = "1E-40"; // 40 digits after the point
    KeyedChangelog model =
        Scenarios.customerMetrics()
            .withRetention(Duration.standardMinutes(10))
            .withBadRecordErrorHandler(bad);
    PCollection<String> changes =
        p.apply(
                SeedStreams.testStreamOf(
                    new SeedStreams()
                        .event(0, 9, "1", Scenarios.iso("10:00:00")) // p0/0
                        .event(0, 42, unfit, Scenarios.iso("10:00:00")) // p0/1: 42's first
                        .event(0, 7, "5", Scenarios.iso("10:01:00")) // p0/2
                        .event(0, 42, "2", Scenarios.iso("10:02:00")) // p0/3
                        .watermark(0, Scenarios.t("10:10:00")) // p0/4: 9's state expires
                        .event(0, 9, unfit, Scenarios.iso("10:11:00")) // p0/5
                        .event(0, 9, "3", Scenarios.iso("10:12:00")) // p0/6
                        .items()))
            .apply(EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(KeyedChangelogTest.NO_DELAY)
            .events()
            .apply(onArrival ? model.appliedOnArrival() : model)
            .apply(
                MapElements.into(TypeDescriptors.strings())
                    .via(
                        (ChangelogRecord r) ->
                            r.op()
                                + " "
                                + r.key().getValue(0)
                                + " "
                                + ((java.math.BigDecimal) r.value("total_spend")).toPlainString()));
    bad.close();
    PAssert.that(changes)
        .containsInAnyOrder("INSERT 9 1", "INSERT 7 5", "INSERT 42 2", "INSERT 9 3");
    String reason =
        ": column `amount`: 0.0000000000000000000000000000000000000001 has 40 digits after the"
            + " decimal point; a decimal holds at most 38 (decimal(38,38)): round the values to 38"
            + " places or fewer";
    PAssert.that(bad.getOutput())
        .containsInAnyOrder("partition 0 offset 1" + reason, "partition 0 offset 5" + reason);
    p.run().waitUntilFinish();
  }

  /** Without a handler the pipeline fails, naming the event's partition and offset. */
  @Test
  void withoutAHandlerAnInt64OverflowFailsThePipelineNamingTheEvent() {
    Pipeline p = SeedStreams.pipeline();
    BadRecordErrorHandler<PCollection<String>> bad = p.registerBadRecordErrorHandler(new Reasons());
    idsThatOverflow(p, bad)
        .events()
        .apply(KeyedChangelog.by("amount").aggregating(Aggregation.sum("customer_id").as("total")));
    bad.close();
    Exception failed =
        org.junit.jupiter.api.Assertions.assertThrows(
            Exception.class, () -> p.run().waitUntilFinish());
    org.hamcrest.MatcherAssert.assertThat(
        failed.getMessage(),
        org.hamcrest.Matchers.containsString(
            "partition 0 offset 1: column `customer_id`: the int64 sum for `total` would"
                + " overflow"));
  }
}
