package dev.streamform.planner.sinks;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.OutputTopics;
import dev.streamform.policies.declarations.OutputTopics.Kind;
import dev.streamform.policies.sql.OutputColumn;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.ClockCoders;
import dev.streamform.transforms.clock.IdleMarker;
import dev.streamform.transforms.clock.LateEvent;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.decisions.DeadLetter;
import dev.streamform.transforms.decisions.Decision;
import dev.streamform.transforms.decisions.UnscoredLateEvent;
import dev.streamform.transforms.envelope.DeclaredId;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.windows.TooLateEvent;
import dev.streamform.transforms.windows.WindowRevision;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.Row;

/**
 * Where a model's outputs go on Kafka, and the JSON records they become. Every record's key and
 * value are JSON text; decimals are exact JSON numbers, timestamps RFC 3339 strings in UTC.
 *
 * <p>An upsert model:
 *
 * <ul>
 *   <li>changelog, topic {@code <model>} (an upsert topic: the last record per key is the key's
 *       row): key {@code {"customer_id":42}} (the key columns), value {@code
 *       {"op":"update","customer_id":42,"total_spend":30.00,"__event":"0-1"}} — the row with its op
 *       and the causing event ({@code <partition>-<offset>} of the source topic);
 *   <li>late events, topic {@code <model>.late}: key the event's key columns, value {@code
 *       {"reason":..,"watermark":..,"partition":..,"offset":..,"event_time":..,"record":{..}}}.
 * </ul>
 *
 * <p>A windowed model (docs/semantics.md §6):
 *
 * <ul>
 *   <li>window records, topic {@code <model>} (every record kept: previews, each revision, the
 *       final record): key {@code {"merchant_id":7,"window_start":"2026-08-30T10:00:00Z"}} (the key
 *       columns and the window), value {@code {"window_start":..,"window_end":..,<key and output
 *       columns>,"status":"corrected","revision":2,"predecessor":1,"logical_window_id":..,
 *       "projection_id":..,"aggregate_digest":..,"offsets":{"0":{"min":0,"max":3,"count":3}},
 *       "generation":1}} — {@code predecessor} is null for revision 1 and previews; a calendar
 *       window ({@code window: 1d | 1w | 1mo}) adds {@code "window_local":"2026-10-25"} after
 *       {@code window_end}: the local date it stands for (a week's first day; a month {@code
 *       "2026-10"}), while {@code window_start}/{@code window_end} stay UTC instants;
 *   <li>too-late events, topic {@code <model>.late}: key that of the window that refused the event,
 *       value {@code {"reason":..,"window_start":..,"window_end":..,"watermark":..,"partition":..,
 *       "offset":..,"event_time":..,"record":{..}}}, one record per refused window.
 * </ul>
 *
 * <p>Both: quarantine, topic {@code <model>.quarantine}: key {@code {"partition":..,"offset":..}},
 * value {@code {"reason":..,"partition":..,"offset":..,"value":..,"value_base64":..}} — the
 * record's bytes as read, base64, and as JSON or text for reading; with {@code event_id}, a
 * repeated id with another payload too (a conflict: its bytes are the event written as JSON).
 *
 * <p>With {@code event_id} on the source: duplicates, topic {@code <model>.duplicates}: key the
 * event's key columns, value {@code {"reason":..,"partition":..,"offset":..,"event_time":..,
 * "record":{..}}} — the repeats dropped, so that nothing leaves the pipeline unseen.
 *
 * <p>A scoring model (docs/semantics.md §11; docs/decisions/0033-decisions-in-production.md):
 *
 * <ul>
 *   <li>decisions, topic {@code <model>.decisions} (every decision kept, not compacted: a revision
 *       never replaces the decision it supersedes): key {@code {"event_id":..}} (the decided
 *       event's declared id, or its {@code <partition>-<offset>} when the source declares none: ADR
 *       0071; a consumer can deduplicate by {@code decision_id} within a key), value {@code
 *       {"decision_id":..,"route":"scored"|"revised","event_id":..,
 *       "partition":..,"offset":..,"occurred_at":..,"arrived_at":..,"arrival_watermark":..,
 *       "scored_at":..,"contract":..,"state_cutoff":..,"state_revision":..,"features":{..},
 *       "score":..,"model_digest":..,"preprocessing_digest":..,"policy_generation":..,
 *       "revision":..,"supersedes":..,"revised_by":..,"key":{..},"record":{..}}};
 *   <li>late events without a decision of their own ({@code ignored}, {@code revising}), topic
 *       {@code <model>.late}, and those sent to reconciliation ({@code reconciled}), topic {@code
 *       <model>.reconcile}: key the event id, value {@code {"route":..,"event_id":..,
 *       "partition":..,"offset":..,"occurred_at":..,"arrival_watermark":..,"updated_state":..,
 *       "affected_decisions":[..],"reason":..,"key":{..},"record":{..}}} ({@code reason}: null, or
 *       why an event not late is reconciled — its reach was freed, ADR 0050);
 *   <li>dead letters, topic {@code <model>.dead_letters}: the quarantine rows above (no usable
 *       event time, unreadable, conflicting repeats) and events ahead of their arrival clock by
 *       more than {@code max_clock_skew}, value {@code {"reason":"clock_skew: ..","partition":..,
 *       "offset":..,"event_id":..,"record":{..}}}.
 * </ul>
 *
 * <p>Every model whose source declares {@code idle_after}: idle markers (docs/semantics.md §9.7),
 * topic {@code <model>.idle}: key {@code {"partition":2}}, value {@code {"kind":"idle"|"resumed",
 * "generation":1,"partition":2,"watermark":..}} — the partition's policy generation and its {@code
 * W_p} when it went idle or, resuming, before its first item; a resumed marker adds that item's
 * {@code "offset"} and {@code "event_time"} and {@code "watermark_after"}, {@code W_p} after it
 * (never below {@code watermark}). Markers are for operators: which items they fall between is a
 * matter of processing time.
 *
 * <p>{@code streamform.yml} may name other topics ({@code topic}, {@code late_topic}, {@code
 * quarantine_topic}).
 */
public final class ModelSinks implements Serializable {
  /** The field of a changelog value that names the causing event. */
  public static final String EVENT_FIELD = "__event";

  private final String topic;
  private final String lateTopic;
  private final String quarantineTopic;
  private final boolean windowed;
  private final List<String> keyColumns;
  // key column as the output names it -> the source column it reads (an alias may rename it)
  private final Map<String, String> keySources;
  private final List<String> outputColumns;
  private final String duplicatesTopic;
  private final String eventIdColumn; // null without event_id
  private final String duplicatesWithin; // null without event_id
  private final boolean decides;
  private final String reconcileTopic;
  private final String idleTopic;
  private final boolean idles;

  private ModelSinks(DeclaredModel declared) {
    ModelDeclaration model = declared.model();
    this.decides = model.decides();
    // the names check compares with the sources' and the other models' topics (ADR 0146)
    this.topic =
        model.topic().orElse(OutputTopics.defaultName(Kind.RECORDS, model.name(), decides));
    this.lateTopic =
        model.lateTopic().orElse(OutputTopics.defaultName(Kind.LATE, model.name(), decides));
    this.quarantineTopic =
        model
            .quarantineTopic()
            .orElse(OutputTopics.defaultName(Kind.QUARANTINE, model.name(), decides));
    this.reconcileTopic = OutputTopics.defaultName(Kind.RECONCILE, model.name(), decides);
    // named like the late and quarantine topics' defaults (docs/reference/output-formats.md)
    this.idleTopic = OutputTopics.defaultName(Kind.IDLE, model.name(), decides);
    this.idles = declared.source().idleAfter().isPresent();
    this.windowed = model.windowed();
    this.keyColumns = List.copyOf(model.key());
    Map<String, String> sources = new LinkedHashMap<>();
    for (OutputColumn c : declared.query().outputs()) {
      if (c.kind() == OutputColumn.Kind.KEY) {
        sources.put(c.name(), c.argument().get());
      }
    }
    this.keySources = sources;
    this.outputColumns = List.copyOf(declared.outputColumns().keySet());
    this.duplicatesTopic = OutputTopics.defaultName(Kind.DUPLICATES, model.name(), decides);
    this.eventIdColumn = declared.source().eventId().orElse(null);
    this.duplicatesWithin =
        declared
            .source()
            .duplicatesWithin()
            .map(dev.streamform.core.time.Durations::format)
            .orElse(null);
  }

  /** The sinks of {@code model}: its topics, and its rows' key and output columns. */
  public static ModelSinks of(DeclaredModel model) {
    return new ModelSinks(model);
  }

  /**
   * The model's own topic: an upsert model's changelog (compacted: the last record per key is the
   * key's row), or a windowed model's window records (not compacted: every revision is kept).
   */
  public String topic() {
    return topic;
  }

  /** True when {@link #topic()} is an upsert topic, to be created compacted. */
  public boolean topicIsCompacted() {
    return !windowed && !decides;
  }

  /**
   * A scoring model's topic for late events sent to reconciliation ({@code late_action:
   * reconcile}), {@code <model>.reconcile}; empty for other models.
   */
  public java.util.Optional<String> reconcileTopic() {
    return decides ? java.util.Optional.of(reconcileTopic) : java.util.Optional.empty();
  }

  public String lateTopic() {
    return lateTopic;
  }

  public String quarantineTopic() {
    return quarantineTopic;
  }

  /**
   * Where events dropped as duplicates go, {@code <model>.duplicates}, when the source declares
   * {@code event_id}; empty otherwise (no such topic is written or created).
   */
  public java.util.Optional<String> duplicatesTopic() {
    return eventIdColumn == null
        ? java.util.Optional.empty()
        : java.util.Optional.of(duplicatesTopic);
  }

  /**
   * Where idle markers go, {@code <model>.idle}, when the source declares {@code idle_after}; empty
   * otherwise (without idleness there is no marker, and no such topic is written or created).
   */
  public java.util.Optional<String> idleTopic() {
    return idles ? java.util.Optional.of(idleTopic) : java.util.Optional.empty();
  }

  /**
   * An idle marker as its Kafka key (the partition) and value: its kind, the partition's policy
   * generation, its watermark and, resuming, the first item's place and the watermark after it.
   */
  public static KV<String, String> idleRecord(IdleMarker m) {
    ObjectNode key = JsonNodeFactory.instance.objectNode();
    key.put("partition", m.partition());
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("kind", m.idle() ? "idle" : "resumed");
    value.put("generation", m.generation());
    value.put("partition", m.partition());
    value.set("watermark", JsonRecords.node(m.watermark()));
    if (!m.idle()) {
      value.put("offset", m.offset());
      value.set("event_time", JsonRecords.node(m.eventTime()));
      value.set("watermark_after", JsonRecords.node(m.watermarkAfter()));
    }
    return KV.of(JsonRecords.text(key), JsonRecords.text(value));
  }

  /**
   * The topics a run of the model writes, after {@code source} when it is not null (a run that
   * reads the topic creates it too): its own topic, late, quarantine and, with {@code event_id},
   * duplicates; with {@code idle_after}, idle markers.
   */
  public List<String> topics(String source) {
    List<String> all = new java.util.ArrayList<>();
    if (source != null) {
      all.add(source);
    }
    all.add(topic);
    all.add(lateTopic);
    all.add(quarantineTopic);
    reconcileTopic().ifPresent(all::add);
    duplicatesTopic().ifPresent(all::add);
    idleTopic().ifPresent(all::add);
    return all;
  }

  /**
   * A decision as its Kafka key (the decided event's id) and value: its identity, features and
   * score, its key columns and the event (docs/semantics.md §11).
   */
  public KV<String, String> decisionRecord(Decision d) {
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    d.fields()
        .forEach(
            (name, v) -> {
              if (name.equals("features")) {
                ObjectNode features = value.putObject("features");
                d.features().forEach(features::put);
              } else {
                value.set(name, JsonRecords.node(v));
              }
            });
    value.set("key", rowObject(d.key()));
    value.set("record", rowObject(d.event()));
    return KV.of(eventKey(d.eventId()), JsonRecords.text(value));
  }

  /**
   * A late event without a decision of its own ({@code ignored}, {@code revising} or {@code
   * reconciled}) as its Kafka key (its event id) and value, with the decisions it would have
   * changed (or, revising, superseded).
   */
  public KV<String, String> unscoredRecord(UnscoredLateEvent e) {
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("route", e.route());
    value.put("event_id", e.eventId());
    value.put("partition", e.partition());
    value.put("offset", e.offset());
    value.set("occurred_at", JsonRecords.node(e.occurredAt()));
    value.set("arrival_watermark", JsonRecords.node(e.arrivalWatermark()));
    value.put("updated_state", e.updatedState());
    e.affectedDecisions().forEach(value.putArray("affected_decisions")::add);
    value.put("reason", e.reason()); // null unless its reach was freed (ADR 0050)
    value.set("key", rowObject(e.key()));
    value.set("record", rowObject(e.event()));
    return KV.of(eventKey(e.eventId()), JsonRecords.text(value));
  }

  /**
   * An event dead-lettered by the scorer (impossible clock skew) as a dead-letter row: the
   * quarantine row's key, the reason, its place in the log and the event.
   */
  public KV<String, String> deadLetterRecord(DeadLetter d) {
    String[] place = d.eventId() == null ? new String[] {"-1", "-1"} : d.eventId().split("-");
    ObjectNode key = JsonNodeFactory.instance.objectNode();
    key.put("partition", Integer.parseInt(place[0]));
    key.put("offset", Long.parseLong(place[1]));
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put(
        "reason",
        cut(
            d.reason().name().toLowerCase(Locale.ROOT)
                + ": "
                + Quarantine.reasonOf(d.description())));
    value.put("partition", Integer.parseInt(place[0]));
    value.put("offset", Long.parseLong(place[1]));
    String declared =
        eventIdColumn == null || d.row() == null || !d.row().getSchema().hasField(eventIdColumn)
            ? null
            : DeclaredId.text(d.row().getValue(eventIdColumn));
    // named as its decisions would be: by the declared id when there is one (ADR 0071)
    value.put("event_id", declared == null ? d.eventId() : declared);
    if (d.row() != null) {
      value.set("record", rowObject(d.row()));
    } else {
      value.put("record", d.record());
    }
    String whole = JsonRecords.text(value);
    if (whole.length() <= MAX_ROW_CHARS) {
      return KV.of(JsonRecords.text(key), whole);
    }
    // too long to write whole (a record near the broker's limit, dead-lettered): cut as a
    // quarantine row of a long record is, so the producer never refuses it
    String record = d.row() != null ? JsonRecords.text(rowObject(d.row())) : d.record();
    byte[] bytes = record.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    keepFirstBytes(value, "record", bytes, true);
    return KV.of(JsonRecords.text(key), JsonRecords.text(value));
  }

  private static String eventKey(String eventId) {
    return JsonNodeFactory.instance.objectNode().put("event_id", eventId).toString();
  }

  /**
   * A changelog record as its Kafka key and value. The fields it adds beside the output columns
   * ({@code op}, {@link #EVENT_FIELD}) are names {@code check} refuses for a query's columns
   * (ProjectLoader.CHANGELOG_FIELDS): keep the two lists together.
   */
  public KV<String, String> changelogRecord(ChangelogRecord r) {
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("op", r.op().name().toLowerCase(Locale.ROOT));
    for (String column : outputColumns) {
      value.set(column, JsonRecords.node(r.value(column)));
    }
    value.put(EVENT_FIELD, r.eventId());
    return KV.of(JsonRecords.text(keyOf(r.key())), JsonRecords.text(value));
  }

  /** A late event as its Kafka key and value. */
  public KV<String, String> lateRecord(LateEvent e) {
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("reason", e.reason());
    return KV.of(
        JsonRecords.text(keyOfEvent(e.envelope().record())),
        withEvent(value, e.envelope(), e.watermark()));
  }

  /**
   * An event dropped as a duplicate ({@code event_id}) as its Kafka key (the event's key columns)
   * and value: the reason, its place in the log, its event time and the event.
   */
  public KV<String, String> duplicateRecord(TimedEvent e) {
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    Object id = e.envelope().record().getValue(eventIdColumn);
    value.put(
        "reason",
        "duplicate: event_id `"
            + eventIdColumn
            + "` = "
            + id
            + " was seen with the"
            + " same payload within duplicates_within "
            + duplicatesWithin
            + "; dropped");
    value.put("partition", e.envelope().partition());
    value.put("offset", e.envelope().offset());
    value.set("event_time", JsonRecords.node(e.envelope().eventTime()));
    value.set("record", rowObject(e.envelope().record()));
    return KV.of(JsonRecords.text(keyOfEvent(e.envelope().record())), JsonRecords.text(value));
  }

  /**
   * An event a keyed stage refused, encoded as the clock encodes events of {@code schema}, as a
   * quarantine record: a repeated {@code event_id} with another payload or without a value ({@code
   * Deduplicate}), whose reason names both places in the log, or an event whose int64 sum would
   * overflow (the model's changelog or windows), whose reason names the column. Its bytes are the
   * event written back as JSON.
   */
  public KV<String, String> refusedRecord(BadRecord bad, Schema schema) {
    TimedEvent e = decode(bad, ClockCoders.TimedEventCoder.of(EnvelopeCoder.of(schema)));
    return quarantined(
        e.envelope().partition(),
        e.envelope().offset(),
        bad.getFailure().getDescription(),
        JsonRecords.bytes(rowObject(e.envelope().record())));
  }

  /**
   * A windowed model's preview, revision or final record as its Kafka key and value. The fields it
   * adds beside the output columns are names {@code check} refuses for a query's columns
   * (ProjectLoader.WINDOW_RECORD_FIELDS): keep the two lists together.
   */
  public KV<String, String> windowRecord(WindowRevision r) {
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.set("window_start", JsonRecords.node(r.windowStart()));
    value.set("window_end", JsonRecords.node(r.windowEnd()));
    if (r.windowLocal() != null) {
      value.put("window_local", r.windowLocal()); // the local date a calendar window stands for
    }
    for (String column : outputColumns) {
      value.set(column, JsonRecords.node(r.value(column)));
    }
    value.put("status", r.status().yamlName());
    value.put("revision", r.revision());
    value.set("predecessor", JsonRecords.node(r.predecessor()));
    value.put("logical_window_id", r.logicalWindowId());
    value.put("projection_id", r.projectionId());
    value.put("aggregate_digest", r.aggregateDigest());
    ObjectNode offsets = value.putObject("offsets");
    for (WindowRevision.PartitionOffsets o : r.offsets()) {
      offsets
          .putObject(Integer.toString(o.partition()))
          .put("min", o.min())
          .put("max", o.max())
          .put("count", o.count());
    }
    value.put("generation", r.generation());
    return KV.of(windowKey(keyOf(r.key()), r.windowStart()), JsonRecords.text(value));
  }

  /** An event a window refused as too late, as its Kafka key (the window's) and value. */
  public KV<String, String> tooLateRecord(TooLateEvent e) {
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("reason", e.reason());
    value.set("window_start", JsonRecords.node(e.windowStart()));
    value.set("window_end", JsonRecords.node(e.windowEnd()));
    return KV.of(
        windowKey(keyOfEvent(e.envelope().record()), e.windowStart()),
        withEvent(value, e.envelope(), e.watermark()));
  }

  /** {@code value} with the watermark the event lost to, its place in the log and the event. */
  private static String withEvent(
      ObjectNode value, Envelope event, org.joda.time.Instant watermark) {
    value.set("watermark", JsonRecords.node(watermark));
    value.put("partition", event.partition());
    value.put("offset", event.offset());
    value.set("event_time", JsonRecords.node(event.eventTime()));
    value.set("record", rowObject(event.record()));
    return JsonRecords.text(value);
  }

  /**
   * A record {@code EventTimeExtraction} quarantined (no value for a key column, or no usable event
   * time), as its Kafka key and value; its bytes are the decoded record written back as JSON.
   */
  public KV<String, String> eventTimeRecord(BadRecord bad, Schema schema) {
    SourceRecord read = decode(bad, SourceRecordCoder.of(schema));
    return quarantined(
        read.partition(),
        read.offset(),
        bad.getFailure().getDescription(),
        JsonRecords.bytes(rowObject(read.record())));
  }

  /**
   * The longest quarantine row written whole, in characters: a record near the broker's size limit
   * would otherwise become a row of twice its size or more ({@code value} escaped, plus {@code
   * value_base64}) that the producer refuses (its default {@code max.request.size} is 1 MiB), and a
   * quarantine write that fails fails the job, which would then fail on the same record again.
   */
  public static final int MAX_ROW_CHARS = 256 * 1024;

  /** How many of a record's bytes a row too long to write whole keeps, in {@code value_base64}. */
  public static final int KEPT_BYTES = 64 * 1024;

  /** The longest reason a quarantine row keeps whole, in characters. */
  public static final int MAX_REASON_CHARS = 8 * 1024;

  /**
   * {@code reason} whole up to {@link #MAX_REASON_CHARS}, else its start and its length: a reason
   * that quotes the record (its field names, its text) must not make the row larger than the
   * producer sends.
   */
  static String cut(String reason) {
    if (reason.length() <= MAX_REASON_CHARS) {
      return reason;
    }
    int end = reason.offsetByCodePoints(0, MAX_REASON_CHARS - 64);
    return reason.substring(0, end)
        + "…(the reason is "
        + reason.codePointCount(0, reason.length())
        + " characters; cut)";
  }

  public static KV<String, String> quarantined(
      int partition, long offset, String description, byte[] bytes) {
    ObjectNode key = JsonNodeFactory.instance.objectNode();
    key.put("partition", partition);
    key.put("offset", offset);
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("reason", cut(Quarantine.reasonOf(description)));
    value.put("partition", partition);
    value.put("offset", offset);
    if (bytes == null) {
      value.putNull("value");
      value.putNull("value_base64");
      return KV.of(JsonRecords.text(key), JsonRecords.text(value));
    }
    if (bytes.length <= KEPT_BYTES) {
      value.set("value", JsonRecords.parseOrText(bytes));
      value.put("value_base64", Base64.getEncoder().encodeToString(bytes));
      String whole = JsonRecords.text(value);
      if (whole.length() <= MAX_ROW_CHARS) {
        return KV.of(JsonRecords.text(key), whole);
      }
    }
    // too long to write whole: the reason, the position and the record's first bytes, said so
    keepFirstBytes(value, "value", bytes, true);
    return KV.of(JsonRecords.text(key), JsonRecords.text(value));
  }

  /**
   * In place of a row of output {@code topic} too large for the producer ({@code maxBytes}, its
   * {@code max.request.size}), a quarantine row saying so: the reason, the topic, the row's key
   * (its first {@link #KEPT_KEY_CHARS} characters) and the value's first {@link #KEPT_BYTES} bytes
   * in {@code value_base64}, with {@code value_truncated} and {@code value_bytes}, as a record too
   * long to keep whole is (docs/decisions/0199).
   */
  public static KV<String, String> tooLargeForKafka(
      String topic, byte[] key, byte[] value, long size, int maxBytes) {
    String keyText = new String(key, java.nio.charset.StandardCharsets.UTF_8);
    boolean keyCut = keyText.length() > KEPT_KEY_CHARS;
    ObjectNode quarantineKey = JsonNodeFactory.instance.objectNode();
    quarantineKey.put("topic", topic);
    quarantineKey.put("key", keyCut ? keyText.substring(0, KEPT_KEY_CHARS) : keyText);
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    row.put(
        "reason",
        String.format(
            java.util.Locale.ROOT,
            "its %s row is %,d bytes with its key and the record's framing, over the %,d"
                + " bytes the Kafka producer sends (max.request.size): not published to %s; to"
                + " publish rows this large, raise max.request.size in the Kafka settings and"
                + " max.message.bytes on the topic",
            topic,
            size,
            maxBytes,
            topic));
    row.put("topic", topic);
    row.put("key", quarantineKey.get("key").asText());
    if (keyCut) {
      row.put("key_truncated", true);
      row.put("key_bytes", key.length);
    }
    keepFirstBytes(row, "value", value, value.length > KEPT_BYTES);
    return KV.of(JsonRecords.text(quarantineKey), JsonRecords.text(row));
  }

  /**
   * In place of {@code field}'s value in {@code row}, which is too long to write whole: null, the
   * first {@link #KEPT_BYTES} of {@code bytes} in {@code <field>_base64}, {@code <field>_truncated}
   * and the whole length in {@code <field>_bytes} (docs/decisions/0199).
   */
  private static void keepFirstBytes(
      ObjectNode row, String field, byte[] bytes, boolean truncated) {
    row.putNull(field);
    row.put(
        field + "_base64",
        Base64.getEncoder()
            .encodeToString(Arrays.copyOf(bytes, Math.min(bytes.length, KEPT_BYTES))));
    row.put(field + "_truncated", truncated);
    row.put(field + "_bytes", bytes.length);
  }

  /** How many of a too-large row's key characters its quarantine row keeps. */
  public static final int KEPT_KEY_CHARS = 1024;

  /** The key of an output row, whose key columns are named as the output names them. */
  private ObjectNode keyOf(Row row) {
    Map<String, Object> key = new LinkedHashMap<>();
    for (String k : keyColumns) {
      key.put(k, row.getValue(k));
    }
    return JsonRecords.object(key);
  }

  /** The key of a source record: its key columns' values, named as the output names them. */
  private ObjectNode keyOfEvent(Row record) {
    Map<String, Object> key = new LinkedHashMap<>();
    for (String k : keyColumns) {
      key.put(k, record.getValue(keySources.getOrDefault(k, k)));
    }
    return JsonRecords.object(key);
  }

  private static String windowKey(ObjectNode key, org.joda.time.Instant windowStart) {
    return JsonRecords.text(key.set("window_start", JsonRecords.node(windowStart)));
  }

  private static ObjectNode rowObject(Row row) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Schema.Field f : row.getSchema().getFields()) {
      values.put(f.getName(), row.getValue(f.getName()));
    }
    return JsonRecords.object(values);
  }

  public static <T> T decode(BadRecord bad, org.apache.beam.sdk.coders.Coder<T> coder) {
    try {
      return CoderUtils.decodeFromByteArray(coder, bad.getRecord().getEncodedRecord());
    } catch (Exception e) {
      throw new IllegalStateException("a quarantined record cannot be decoded: " + bad, e);
    }
  }
}
