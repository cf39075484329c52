package dev.streamform.transforms;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * ADR 0212: an event time is one a declared {@code timestamp} column can hold, 0001-01-01T00:00:00Z
 * to 9999-12-31T23:59:59.999Z. A Java pipeline's INT64 event time near either end of Beam's range
 * is quarantined by the extraction, naming the value and the range; it passed before, and the
 * clock's delay, the id's horizon or the key's retention then took a timer past Beam's range and
 * stopped the pipeline. The ends of the range themselves are event times like any other.
 */
class EventTimeRangeTest {
  static final Schema ORDERS =
      Schema.builder()
          .addStringField("id")
          .addInt64Field("k")
          .addInt64Field("amount")
          .addInt64Field("t")
          .build();

  static final String RANGE =
      " is out of range: event times lie between 0001-01-01T00:00:00Z and"
          + " 9999-12-31T23:59:59.999Z (epoch milliseconds -62135596800000 to 253402300799999)";

  /**
   * Order A at {@code t} and order B at 1 s past the epoch, in time order (the later one is not
   * late), through every stage with a timer.
   */
  private static void run(long t, boolean onArrival, String... expected) {
    Pipeline p = SeedStreams.pipeline();
    Instant read = new Instant(0);
    Row a = Row.withSchema(ORDERS).addValues("A", 1L, 10L, t).build();
    Row b = Row.withSchema(ORDERS).addValues("B", 2L, 5L, 1000L).build();
    Row first = t < 1000 ? a : b;
    Row second = t < 1000 ? b : a;
    TestStream<SourceRecord> stream =
        TestStream.create(SourceRecordCoder.of(ORDERS))
            .addElements(SourceRecord.of(0, 0, read, first), SourceRecord.of(0, 1, read, second))
            .advanceWatermarkToInfinity();
    ExtractionResult extracted = p.apply(stream).apply(EventTimeExtraction.from("t"));
    KeyedChangelog model =
        KeyedChangelog.by("k")
            .aggregating(Aggregation.sum("amount").as("total"))
            .withRetention(Duration.standardMinutes(10));
    PCollection<String> changes =
        extracted
            .events()
            .apply(
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .withContiguousOffsets()
                    .withPartitions(0))
            .events()
            .apply(Deduplicate.byId("id", Duration.standardMinutes(30)))
            .events()
            .apply(onArrival ? model.appliedOnArrival() : model)
            .apply(
                MapElements.into(TypeDescriptors.strings())
                    .via(
                        (ChangelogRecord r) ->
                            r.op() + " " + r.key().getValue(0) + " " + r.value("total")));
    PCollection<String> reasons =
        extracted
            .quarantined()
            .apply(
                MapElements.into(TypeDescriptors.strings())
                    .via((BadRecord bad) -> bad.getFailure().getDescription()));
    if (expected.length == 1) {
      PAssert.that(changes).containsInAnyOrder("INSERT 2 5");
      PAssert.that(reasons).containsInAnyOrder(expected);
    } else {
      PAssert.that(changes).containsInAnyOrder(expected);
      PAssert.that(reasons).empty();
    }
    p.run().waitUntilFinish();
  }

  /** Beam's latest time less 1 day (the key's retention passed it) and its earliest (the delay). */
  @ParameterizedTest(name = "t = {0} ms, applied on arrival: {1}")
  @CsvSource({
    "9223371950454774, false",
    "9223371950454774, true",
    "-9223372036854775, false",
    "-9223372036854775, true"
  })
  void aTimeNearEitherEndOfBeamsRangeIsQuarantinedAndThePipelineFinishes(
      long t, boolean onArrival) {
    String offset = t < 1000 ? "0" : "1";
    run(
        t,
        onArrival,
        "partition 0 offset " + offset + ": event-time column `t`: '" + t + "'" + RANGE);
  }

  /** The first and the last millisecond of the range are event times, with every timer set. */
  @ParameterizedTest(name = "t = {0} ms, applied on arrival: {1}")
  @CsvSource({
    "-62135596800000, false",
    "-62135596800000, true",
    "253402300799999, false",
    "253402300799999, true"
  })
  void theEndsOfTheRangeAreEventTimes(long t, boolean onArrival) {
    run(t, onArrival, "INSERT 1 10", "INSERT 2 5");
  }
}
