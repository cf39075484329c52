package dev.streamform.transforms.extraction;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.google.auto.value.AutoValue;
import dev.streamform.core.text.Excerpt;
import dev.streamform.core.time.EventTimeRange;
import dev.streamform.core.time.LeapSeconds;
import dev.streamform.transforms.BadRecordCoder;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import org.joda.time.ReadableInstant;

/**
 * Reads each record's event time from a declared column and wraps the record in an {@link Envelope}
 * whose element timestamp is that event time ({@link #from}); or, for a source without an
 * event-time column, gives each record its arrival time ({@link #atArrival}).
 *
 * <p>With {@link #withKeyColumns}, a record without a value (missing or null) for one of a model's
 * key columns is quarantined first, with the reason {@link #missingKeyReason} — the reason a file's
 * or a Kafka topic's decoder gives the same record, so a fixture, a file and a topic agree (ADR
 * 0088) — before its event time is read: a record without either is quarantined for its key.
 *
 * <p>Guarantees: a record whose event-time value is missing, unparseable or outside the range of
 * event times ({@link EventTimeRange}: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, that of a
 * declared {@code timestamp} column, ADR 0212) never falls back to processing time; it goes to
 * {@link ExtractionResult#quarantined()} as a Beam {@link BadRecord} whose description gives the
 * reason and whose encoded record is the {@link SourceRecord} (decodable with the input's coder).
 * Punctuations pass through unchanged. Every input record ends up as an event or as a quarantined
 * record; a quarantined one also leaves an {@link Envelope#gap} (no record, no watermark
 * information, timestamped at the beginning of time) in the events at its position, so the
 * partition's offsets stay contiguous for {@code SourceClock.withContiguousOffsets()} and the clock
 * holds the partition from that record on.
 *
 * <p>The event-time column may be a {@code DATETIME}, an {@code INT64} (epoch milliseconds) or a
 * {@code STRING} (an RFC 3339 instant, or epoch milliseconds written as digits). The input must be
 * encoded with a {@link SourceRecordCoder}.
 *
 * <pre>{@code
 * ExtractionResult result = records.apply(EventTimeExtraction.from("ordered_at"));
 * result.events();       // PCollection<Envelope>, timestamped by event time
 * result.quarantined();  // PCollection<BadRecord>, with reasons
 * }</pre>
 */
@AutoValue
public abstract class EventTimeExtraction
    extends PTransform<PCollection<SourceRecord>, ExtractionResult> {

  /** The event-time column; null when records take their arrival time ({@link #atArrival}). */
  public abstract @Nullable String column();

  /** Columns every record must have a value for; one without is quarantined (ADR 0088). */
  public abstract List<String> keyColumns();

  /** Where records without a usable event time also go, besides {@code quarantined()}. */
  public abstract @Nullable ErrorHandler<BadRecord, ?> badRecordErrorHandler();

  /** Extraction of event time from {@code column}. */
  public static EventTimeExtraction from(String column) {
    checkArgument(
        column != null && !column.isBlank(),
        "EventTimeExtraction.from(%s): name the records' event-time column, e.g."
            + " EventTimeExtraction.from(\"ordered_at\")",
        column == null ? "null" : "\"" + column + "\"");
    return new AutoValue_EventTimeExtraction(column, List.of(), null);
  }

  /**
   * Each record's event time is its arrival time ({@link SourceRecord#ingestTime()}): a source
   * without an event-time column. Only a missing key value ({@link #withKeyColumns}) quarantines.
   */
  public static EventTimeExtraction atArrival() {
    return new AutoValue_EventTimeExtraction(null, List.of(), null);
  }

  /**
   * Records without a value (missing or null) for one of {@code columns} — a model's key columns as
   * the source names them — are quarantined with the reason {@link #missingKeyReason}, the first
   * such column in the order given, before the event time is read (ADR 0088).
   */
  public EventTimeExtraction withKeyColumns(List<String> columns) {
    checkArgument(
        columns != null,
        "EventTimeExtraction.withKeyColumns(null): pass the key columns, e.g."
            + " List.of(\"customer_id\")");
    // none, null, blank and twice are refused as KeyedChangelog.by refuses them (an empty list is
    // no key columns: nothing to quarantine for)
    List<String> keys =
        columns.isEmpty()
            ? List.of()
            : dev.streamform.transforms.changelog.OutputColumns.keyColumns(
                call() + ".withKeyColumns", "an extraction with key columns", columns);
    return new AutoValue_EventTimeExtraction(column(), keys, badRecordErrorHandler());
  }

  /** The reason a record without a value for key column {@code column} is quarantined. */
  public static String missingKeyReason(String column) {
    return "key column `" + column + "` has no value";
  }

  /**
   * Records without a usable event time also go to {@code handler} (Beam's bad-record convention:
   * {@code pipeline.registerBadRecordErrorHandler(sink)}), each with the reason naming its
   * partition and offset; {@link ExtractionResult#quarantined()} still has them.
   */
  public EventTimeExtraction withBadRecordErrorHandler(ErrorHandler<BadRecord, ?> handler) {
    checkArgument(
        handler != null,
        "EventTimeExtraction.withBadRecordErrorHandler(null): pass the handler that"
            + " pipeline.registerBadRecordErrorHandler(..) returned");
    return new AutoValue_EventTimeExtraction(column(), keyColumns(), handler);
  }

  /** This transform as its author wrote it, for messages: {@code EventTimeExtraction.from("t")}. */
  private String call() {
    return column() == null
        ? "EventTimeExtraction.atArrival()"
        : "EventTimeExtraction.from(\"" + column() + "\")";
  }

  @Override
  public ExtractionResult expand(PCollection<SourceRecord> input) {
    Coder<SourceRecord> coder = input.getCoder();
    checkArgument(
        coder instanceof SourceRecordCoder,
        "EventTimeExtraction needs its input encoded with a SourceRecordCoder, got %s",
        coder);
    Schema schema = ((SourceRecordCoder) coder).recordSchema();
    for (String c : keyColumns()) {
      checkArgument(
          schema.hasField(c),
          "%s.withKeyColumns(%s): key column `%s` is not a field of the records (fields: %s)",
          call(),
          keyColumns(),
          c,
          schema.getFieldNames());
    }
    if (column() != null) {
      checkArgument(
          schema.hasField(column()),
          "%s: event-time column `%s` is not a field of the records (fields: %s)",
          call(),
          column(),
          schema.getFieldNames());
      Schema.TypeName type = schema.getField(column()).getType().getTypeName();
      checkArgument(
          type == Schema.TypeName.DATETIME
              || type == Schema.TypeName.INT64
              || type == Schema.TypeName.STRING,
          "%s: event-time column `%s` has type %s; it must be DATETIME, INT64 (epoch ms) or"
              + " STRING",
          call(),
          column(),
          type);
    }

    TupleTag<Envelope> events = new TupleTag<>("events") {};
    TupleTag<BadRecord> quarantined = new TupleTag<>("quarantined") {};
    PCollectionTuple out =
        input.apply(
            "ExtractEventTime",
            ParDo.of(new ExtractFn(column(), keyColumns(), coder, events, quarantined))
                .withOutputTags(events, TupleTagList.of(quarantined)));
    PCollection<Envelope> ev = out.get(events).setCoder(EnvelopeCoder.of(schema));
    PCollection<BadRecord> bad = out.get(quarantined).setCoder(BadRecordCoder.of());
    if (badRecordErrorHandler() != null) {
      badRecordErrorHandler().addErrorCollection(bad);
    }
    return new ExtractionResult(input.getPipeline(), events, ev, quarantined, bad);
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    if (column() != null) {
      builder.add(DisplayData.item("eventTimeColumn", column()).withLabel("Event-time column"));
    } else {
      builder.add(DisplayData.item("eventTime", "arrival").withLabel("Event time"));
    }
    if (!keyColumns().isEmpty()) {
      builder.add(
          DisplayData.item("keyColumns", String.join(",", keyColumns())).withLabel("Key columns"));
    }
  }

  /** Why a value cannot serve as an event time; the message is the quarantine reason. */
  static final class UnusableEventTime extends Exception {
    UnusableEventTime(String reason) {
      super(reason, null, false, false);
    }
  }

  /** The event time held by {@code value} of {@code column}, or why there is none. */
  static Instant eventTimeOf(String column, Object value) throws UnusableEventTime {
    if (value == null) {
      throw new UnusableEventTime("no value for event-time column `" + column + "`");
    }
    Instant t;
    String text;
    if (value instanceof ReadableInstant) {
      t = new Instant(((ReadableInstant) value).getMillis());
      text = java.time.Instant.ofEpochMilli(t.getMillis()).toString(); // as the range is written
    } else if (value instanceof Long) {
      t = new Instant((Long) value);
      text = value.toString();
    } else {
      text = value.toString().trim();
      try {
        t =
            text.matches("-?\\d+")
                ? new Instant(Long.parseLong(text))
                : new Instant(
                    LeapSeconds.parse(
                            text,
                            x ->
                                OffsetDateTime.parse(x, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                                    .toInstant())
                        .toEpochMilli());
      } catch (DateTimeException | NumberFormatException | ArithmeticException e) {
        throw new UnusableEventTime(
            "event-time column `"
                + column
                + "` holds \""
                + text
                + "\", which is neither an RFC 3339 instant (2026-08-30T10:00:00Z) nor epoch"
                + " milliseconds");
      }
    }
    // The range of a timestamp column, well inside Beam's: a clock's delay, a state's retention
    // and an id's horizon added to a time past it would leave Beam's range and stop the pipeline
    if (!EventTimeRange.contains(t.getMillis())) {
      throw new UnusableEventTime(
          "event-time column `" + column + "`: " + EventTimeRange.outOfRange(Excerpt.quoted(text)));
    }
    return t;
  }

  private static final class ExtractFn extends DoFn<SourceRecord, Envelope> {
    private final @Nullable String column;
    private final String[] keyColumns;
    private final Coder<SourceRecord> coder;
    private final TupleTag<Envelope> events;
    private final TupleTag<BadRecord> quarantined;
    private final Counter quarantinedCount =
        StreamformMetrics.counter(StreamformMetrics.QUARANTINED);

    ExtractFn(
        @Nullable String column,
        List<String> keyColumns,
        Coder<SourceRecord> coder,
        TupleTag<Envelope> events,
        TupleTag<BadRecord> quarantined) {
      this.column = column;
      this.keyColumns = keyColumns.toArray(new String[0]);
      this.coder = coder;
      this.events = events;
      this.quarantined = quarantined;
    }

    @ProcessElement
    public void process(@Element SourceRecord record, MultiOutputReceiver out) throws Exception {
      if (record.isWatermark()) {
        if (column == null) {
          out.get(events).output(Envelope.punctuation(record));
        } else {
          out.get(events).outputWithTimestamp(Envelope.punctuation(record), record.watermark());
        }
        return;
      }
      Row row = record.record();
      String reason = null;
      // first the key, as a file's or a topic's decoder does (ADR 0088)
      for (String key : keyColumns) {
        if (row.getValue(key) == null) {
          reason = missingKeyReason(key);
          break;
        }
      }
      if (reason == null) {
        if (column == null) {
          out.get(events).output(Envelope.event(record, record.ingestTime()));
          return;
        }
        try {
          Instant t = eventTimeOf(column, row.getValue(column));
          out.get(events).outputWithTimestamp(Envelope.event(record, t), t);
          return;
        } catch (UnusableEventTime unusable) {
          reason = unusable.getMessage();
        }
      }
      quarantinedCount.inc();
      // Keep the record's place in its partition's log, or an offset-ordering clock would wait
      // for this offset forever and hold back every later item of the partition. Timestamped at
      // the beginning of time, like the gap a Kafka source leaves for an undecodable record: in
      // flight it holds the watermark until the clock has seen it and holds the partition itself
      // (a partition's hold starts with its first record of any kind), and it never raises the
      // stamps of the partition's later events to a read time.
      out.get(events).outputWithTimestamp(Envelope.gap(record), BoundedWindow.TIMESTAMP_MIN_VALUE);
      out.get(quarantined)
          .output(
              BadRecord.builder()
                  .setRecord(
                      BadRecord.Record.builder()
                          .setHumanReadableJsonRecord(row.toString())
                          .addCoderAndEncodedRecord(coder, record)
                          .build())
                  .setFailure(
                      BadRecord.Failure.builder()
                          .setDescription(
                              "partition "
                                  + record.partition()
                                  + " offset "
                                  + record.offset()
                                  + ": "
                                  + reason)
                          .build())
                  .build());
    }

    @Override
    @SuppressWarnings("deprecation") // outputs keep the record's own time, which may be far back
    public org.joda.time.Duration getAllowedTimestampSkew() {
      return org.joda.time.Duration.millis(Long.MAX_VALUE);
    }
  }
}
