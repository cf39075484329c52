package dev.streamform.transforms.extraction;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.io.ByteArrayInputStream;
import java.util.List;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.DateTime;
import org.joda.time.DateTimeZone;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** Event-time extraction: accepted forms, each quarantine reason, and what a quarantine carries. */
class EventTimeExtractionTest {
  static final Instant TEN = Instant.parse("2026-08-30T10:00:00Z");

  @Test
  void acceptedFormsOfAnEventTime() throws Exception {
    assertThat(EventTimeExtraction.eventTimeOf("c", "2026-08-30T10:00:00Z"), equalTo(TEN));
    // a leap second: the last millisecond of the second before it (ADR 0128)
    assertThat(
        EventTimeExtraction.eventTimeOf("c", "2016-12-31T23:59:60Z"),
        equalTo(new Instant(java.time.Instant.parse("2016-12-31T23:59:59.999Z").toEpochMilli())));
    assertThat(EventTimeExtraction.eventTimeOf("c", "2026-08-30T12:00:00.000+02:00"), equalTo(TEN));
    assertThat(
        EventTimeExtraction.eventTimeOf("c", "2026-08-30T10:00:00.5Z"), equalTo(TEN.plus(500)));
    assertThat(EventTimeExtraction.eventTimeOf("c", String.valueOf(TEN.getMillis())), equalTo(TEN));
    assertThat(EventTimeExtraction.eventTimeOf("c", TEN.getMillis()), equalTo(TEN));
    assertThat(
        EventTimeExtraction.eventTimeOf("c", new DateTime(TEN.getMillis(), DateTimeZone.UTC)),
        equalTo(TEN));
  }

  @Test
  void refusedFormsNameTheReason() {
    assertThat(
        assertThrows(
                EventTimeExtraction.UnusableEventTime.class,
                () -> EventTimeExtraction.eventTimeOf("c", "10:00:00"))
            .getMessage(),
        equalTo(
            "event-time column `c` holds \"10:00:00\", which is neither an RFC 3339 instant"
                + " (2026-08-30T10:00:00Z) nor epoch milliseconds"));
    assertThrows(
        EventTimeExtraction.UnusableEventTime.class,
        () -> EventTimeExtraction.eventTimeOf("c", "2026-08-30T10:00:00")); // no zone
    assertThrows(
        EventTimeExtraction.UnusableEventTime.class,
        () -> EventTimeExtraction.eventTimeOf("c", "2026-08-30"));
    assertThrows(
        EventTimeExtraction.UnusableEventTime.class,
        () -> EventTimeExtraction.eventTimeOf("c", "99999999999999999999"));
    assertThrows(
        EventTimeExtraction.UnusableEventTime.class,
        () -> EventTimeExtraction.eventTimeOf("c", Long.MAX_VALUE));
    assertThrows(
        EventTimeExtraction.UnusableEventTime.class,
        () -> EventTimeExtraction.eventTimeOf("c", null));
  }

  static final String RANGE =
      " is out of range: event times lie between 0001-01-01T00:00:00Z and"
          + " 9999-12-31T23:59:59.999Z (epoch milliseconds -62135596800000 to 253402300799999)";

  /**
   * ADR 0212: the range of a declared timestamp column, in every form, the value named as given;
   * its ends are event times.
   */
  @Test
  void aTimeOutsideTheYears1To9999IsRefusedNamingTheValueAndTheRange() throws Exception {
    long first = -62135596800000L;
    long last = 253402300799999L;
    assertThat(EventTimeExtraction.eventTimeOf("c", first), equalTo(new Instant(first)));
    assertThat(EventTimeExtraction.eventTimeOf("c", last), equalTo(new Instant(last)));
    assertThat(
        EventTimeExtraction.eventTimeOf("c", "9999-12-31T23:59:59.999Z"),
        equalTo(new Instant(last)));
    assertThat(refusal(first - 1), equalTo("event-time column `c`: '-62135596800001'" + RANGE));
    assertThat(refusal(last + 1), equalTo("event-time column `c`: '253402300800000'" + RANGE));
    assertThat(
        refusal(" +10000-01-01T00:00:00Z "),
        equalTo("event-time column `c`: '+10000-01-01T00:00:00Z'" + RANGE));
    assertThat(
        refusal(new DateTime(last + 1, DateTimeZone.UTC)),
        equalTo("event-time column `c`: '+10000-01-01T00:00:00Z'" + RANGE));
  }

  private static String refusal(Object value) {
    return assertThrows(
            EventTimeExtraction.UnusableEventTime.class,
            () -> EventTimeExtraction.eventTimeOf("c", value))
        .getMessage();
  }

  static final class Describe extends DoFn<Envelope, String> {
    @ProcessElement
    public void process(@Element Envelope e, @Timestamp Instant ts, OutputReceiver<String> o) {
      o.output(
          e.eventId()
              + (e.isGap() ? " gap" : e.isWatermark() ? " punctuation" : " event")
              + " "
              + e.eventTime()
              + " @"
              + ts);
    }
  }

  static final Schema INT64_TIMES =
      Schema.builder().addInt64Field("id").addNullableField("at", Schema.FieldType.INT64).build();

  @Test
  void eventsAreStampedWithTheirEventTimeAndQuarantineCarriesTheDecodableRecord() throws Exception {
    SourceRecordCoder coder = SourceRecordCoder.of(INT64_TIMES);
    Row good = Row.withSchema(INT64_TIMES).addValues(1L, TEN.getMillis()).build();
    Row missing = Row.withSchema(INT64_TIMES).addValues(2L, null).build();
    Row outOfRange = Row.withSchema(INT64_TIMES).addValues(3L, Long.MIN_VALUE).build();
    TestStream<SourceRecord> stream =
        TestStream.create(coder)
            .addElements(
                TimestampedValue.of(SourceRecord.of(3, 7, new Instant(0), good), new Instant(0)),
                TimestampedValue.of(SourceRecord.of(3, 8, new Instant(0), missing), new Instant(0)),
                TimestampedValue.of(SourceRecord.punctuation(3, 9, new Instant(0), TEN), TEN),
                TimestampedValue.of(
                    SourceRecord.of(3, 10, new Instant(0), outOfRange), new Instant(0)))
            .advanceWatermarkToInfinity();
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    ExtractionResult r = p.apply(stream).apply(EventTimeExtraction.from("at"));
    PAssert.that(r.events().apply(ParDo.of(new Describe())))
        .containsInAnyOrder(
            "3-7 event 2026-08-30T10:00:00.000Z @2026-08-30T10:00:00.000Z",
            "3-8 gap -290308-12-21T19:59:05.225Z @-290308-12-21T19:59:05.225Z",
            "3-9 punctuation 2026-08-30T10:00:00.000Z @2026-08-30T10:00:00.000Z",
            "3-10 gap -290308-12-21T19:59:05.225Z @-290308-12-21T19:59:05.225Z");
    PAssert.that(
            r.quarantined()
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (BadRecord b) -> {
                              try {
                                SourceRecord back =
                                    SourceRecordCoder.of(INT64_TIMES)
                                        .decode(
                                            new ByteArrayInputStream(
                                                b.getRecord().getEncodedRecord()));
                                return b.getFailure().getDescription()
                                    + " | "
                                    + back.partition()
                                    + "/"
                                    + back.offset()
                                    + " id="
                                    + back.record().getInt64("id");
                              } catch (java.io.IOException e) {
                                throw new IllegalStateException(e);
                              }
                            })))
        .containsInAnyOrder(
            "partition 3 offset 8: no value for event-time column `at` | 3/8 id=2",
            "partition 3 offset 10: event-time column `at`: '-9223372036854775808' is out of range:"
                + " event times lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z"
                + " (epoch milliseconds -62135596800000 to 253402300799999) | 3/10 id=3");
    p.run().waitUntilFinish();
  }

  static final Schema KEYED =
      Schema.builder()
          .addNullableField("customer_id", Schema.FieldType.INT64)
          .addNullableField("at", Schema.FieldType.INT64)
          .build();

  static String reasonAndOffset(BadRecord b) {
    return b.getFailure().getDescription();
  }

  /**
   * A record without its key is quarantined for its key, before its event time is read (a record
   * without either names the key), on a source with an event-time column and on one without.
   */
  @Test
  void aMissingKeyIsQuarantinedFirstWithOrWithoutAnEventTimeColumn() {
    SourceRecordCoder coder = SourceRecordCoder.of(KEYED);
    Instant read = new Instant(5_000);
    TestStream<SourceRecord> stream =
        TestStream.create(coder)
            .addElements(
                TimestampedValue.of(
                    SourceRecord.of(
                        0, 1, read, Row.withSchema(KEYED).addValues(7L, TEN.getMillis()).build()),
                    read),
                TimestampedValue.of(
                    SourceRecord.of(
                        0, 2, read, Row.withSchema(KEYED).addValues(null, TEN.getMillis()).build()),
                    read),
                TimestampedValue.of(
                    SourceRecord.of(
                        0, 3, read, Row.withSchema(KEYED).addValues(null, null).build()),
                    read),
                TimestampedValue.of(
                    SourceRecord.of(0, 4, read, Row.withSchema(KEYED).addValues(8L, null).build()),
                    read))
            .advanceWatermarkToInfinity();
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    var records = p.apply(stream);
    ExtractionResult byColumn =
        records.apply(
            "ByColumn", EventTimeExtraction.from("at").withKeyColumns(List.of("customer_id")));
    ExtractionResult byArrival =
        records.apply(
            "ByArrival", EventTimeExtraction.atArrival().withKeyColumns(List.of("customer_id")));
    PAssert.that(byColumn.events().apply("DescribeColumn", ParDo.of(new Describe())))
        .containsInAnyOrder(
            "0-1 event 2026-08-30T10:00:00.000Z @2026-08-30T10:00:00.000Z",
            "0-2 gap -290308-12-21T19:59:05.225Z @-290308-12-21T19:59:05.225Z",
            "0-3 gap -290308-12-21T19:59:05.225Z @-290308-12-21T19:59:05.225Z",
            "0-4 gap -290308-12-21T19:59:05.225Z @-290308-12-21T19:59:05.225Z");
    PAssert.that(
            byColumn
                .quarantined()
                .apply(
                    "ReasonsColumn",
                    MapElements.into(TypeDescriptors.strings())
                        .via(EventTimeExtractionTest::reasonAndOffset)))
        .containsInAnyOrder(
            "partition 0 offset 2: key column `customer_id` has no value",
            "partition 0 offset 3: key column `customer_id` has no value",
            "partition 0 offset 4: no value for event-time column `at`");
    PAssert.that(byArrival.events().apply("DescribeArrival", ParDo.of(new Describe())))
        .containsInAnyOrder(
            "0-1 event 1970-01-01T00:00:05.000Z @1970-01-01T00:00:05.000Z",
            "0-2 gap -290308-12-21T19:59:05.225Z @-290308-12-21T19:59:05.225Z",
            "0-3 gap -290308-12-21T19:59:05.225Z @-290308-12-21T19:59:05.225Z",
            "0-4 event 1970-01-01T00:00:05.000Z @1970-01-01T00:00:05.000Z");
    PAssert.that(
            byArrival
                .quarantined()
                .apply(
                    "ReasonsArrival",
                    MapElements.into(TypeDescriptors.strings())
                        .via(EventTimeExtractionTest::reasonAndOffset)))
        .containsInAnyOrder(
            "partition 0 offset 2: key column `customer_id` has no value",
            "partition 0 offset 3: key column `customer_id` has no value");
    p.run().waitUntilFinish();
  }

  @Test
  void aKeyColumnThatIsNotAFieldIsRefusedWhenBuilt() {
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    var records =
        p.apply(TestStream.create(SourceRecordCoder.of(KEYED)).advanceWatermarkToInfinity());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> records.apply(EventTimeExtraction.atArrival().withKeyColumns(List.of("cust"))));
    assertThat(
        e.getMessage(),
        equalTo(
            "EventTimeExtraction.atArrival().withKeyColumns([cust]): key column `cust` is not a"
                + " field of the records (fields: [customer_id, at])"));
  }

  /**
   * Key columns are refused when given as KeyedChangelog.by refuses them, and an event-time column
   * that is not a field names the transform (found by a read-only audit of the Java API: "" and a
   * column named twice were taken, and the expand message did not say which transform).
   */
  @Test
  void keyColumnsAreCheckedWhenGivenAndAMissingEventTimeColumnNamesTheTransform() {
    IllegalArgumentException blank =
        assertThrows(
            IllegalArgumentException.class,
            () -> EventTimeExtraction.from("at").withKeyColumns(List.of("")));
    assertThat(
        blank.getMessage(),
        equalTo(
            "EventTimeExtraction.from(\"at\").withKeyColumns(\"\"): a key column is blank; name"
                + " columns of the records, e.g."
                + " EventTimeExtraction.from(\"at\").withKeyColumns(\"customer_id\")"));
    IllegalArgumentException twice =
        assertThrows(
            IllegalArgumentException.class,
            () -> EventTimeExtraction.from("at").withKeyColumns(List.of("k", "k")));
    assertThat(twice.getMessage(), org.hamcrest.Matchers.containsString("is named twice"));
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    var records =
        p.apply(TestStream.create(SourceRecordCoder.of(KEYED)).advanceWatermarkToInfinity());
    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class, () -> records.apply(EventTimeExtraction.from("nope")));
    assertThat(
        missing.getMessage(),
        equalTo(
            "EventTimeExtraction.from(\"nope\"): event-time column `nope` is not a field of the"
                + " records (fields: [customer_id, at])"));
  }
}
