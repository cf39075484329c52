package dev.streamform.teststreams.oracle;

import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.schema.ColumnValues;
import dev.streamform.transforms.envelope.DeclaredId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The reference reading of {@code event_id} / {@code duplicates_within} (issue 16), in plain Java
 * for the oracles: a map from id to the first event that carried it. It shares no code with the
 * {@code Deduplicate} transform.
 *
 * <p>An event that passed the clock (not dropped as late, not quarantined) is judged against its
 * id's first event: when there is none, or its own partition's watermark at its arrival {@code W_p}
 * has reached {@code first event time + duplicates_within}, it is a new first event (kept);
 * otherwise it is a {@link Verdict#DUPLICATE} when every column has the first one's value (decimals
 * by value) and a {@link Verdict#CONFLICT} when any differs. An event without a value for the id
 * column is {@link Verdict#NO_ID}: quarantined, remembered by nothing. The copies of an id are
 * judged in log order ({@link LogPlace}: the first in log order is kept, ADR 0017), as the {@code
 * Deduplicate} transform judges them, not in the order they were delivered: the copies of one id on
 * two partitions are equal in payload but not in place, so the copy kept decides whether the event
 * is late and which offsets its outputs name. An oracle that plays its items in delivery order gets
 * its ids from {@link #inLogOrder}, which plays them once to learn each event's place.
 *
 * <p>For an upsert model whose source declares {@code event_id_scope: key} the ids are scoped by
 * its key (ADR 0073): the map is from key and id, so the same id under another key is that key's
 * first event, neither a duplicate nor a conflict. Otherwise they are the source's whole log's.
 */
final class EventIds {
  /** How an event that passed the clock is judged. */
  enum Verdict {
    /** Processed: the id's first event, or the first after the horizon passed. */
    FIRST,
    /** Dropped and counted: the same id and payload again, within the horizon. */
    DUPLICATE,
    /** Quarantined: the same id with another payload, within the horizon. */
    CONFLICT,
    /** Quarantined: no value for the id column (no id, not one shared null id). */
    NO_ID
  }

  private record First(Map<String, Object> record, Instant time, String eventId) {}

  private final SourceDeclaration source;
  private final Optional<String> column;
  private final Duration horizon;
  private final List<String> scope;
  private final Map<List<Object>, First> seen = new HashMap<>();
  private String firstOfLast;

  /** The events judged while {@link #inLogOrder} learns their places; null otherwise. */
  private List<Judged> recording;

  /** By event id: what log order made of each event judged, once {@link #inLogOrder} has. */
  private Map<String, Decided> decided;

  private record Judged(
      String eventId, Map<String, Object> record, Instant t, Instant wp, LogPlace place) {}

  private record Decided(Verdict verdict, String firstOf) {}

  /** Ids of the source's whole log (windowed and scoring models). */
  EventIds(SourceDeclaration source) {
    this(source, List.of());
  }

  /** Ids scoped by the columns {@code scope} (an upsert model's key); empty: source-wide. */
  EventIds(SourceDeclaration source, List<String> scope) {
    this.source = source;
    this.column = source.eventId();
    this.horizon = source.duplicatesWithin().orElse(Duration.ZERO);
    this.scope = List.copyOf(scope);
  }

  /**
   * The ids of {@code source} (scoped by {@code scope}) for an oracle that plays its items in
   * delivery order: {@code play} plays them once with ids that answer {@link Verdict#FIRST} to
   * every event and note where it is in the log (each event {@code <partition>-<offset>} judged
   * with its partition's watermark at arrival); the answer then judges each event as log order
   * does, when the oracle plays the same items again. Without {@code event_id} nothing is played.
   */
  static EventIds inLogOrder(
      SourceDeclaration source, List<String> scope, Consumer<EventIds> play) {
    EventIds ids = new EventIds(source, scope);
    if (!ids.declared()) {
      return ids;
    }
    EventIds probe = new EventIds(source, scope);
    probe.recording = new ArrayList<>();
    play.accept(probe);
    List<Judged> log = new ArrayList<>(probe.recording);
    log.sort(Comparator.comparing(Judged::place));
    Map<String, Decided> decided = new HashMap<>();
    for (Judged j : log) {
      Verdict v = ids.judge(j.eventId(), j.record(), j.t(), j.wp());
      decided.put(j.eventId(), new Decided(v, ids.firstOfLast));
    }
    ids.decided = decided; // from here on, judge answers what was decided
    return ids;
  }

  /** True when the source declares {@code event_id}. */
  boolean declared() {
    return column.isPresent();
  }

  /**
   * Judges event {@code eventId} with time {@code t}, arriving when its partition's watermark was
   * {@code wp} (null: undefined); a {@link Verdict#FIRST} is remembered.
   */
  Verdict judge(String eventId, Map<String, Object> record, Instant t, Instant wp) {
    if (column.isEmpty()) {
      return Verdict.FIRST;
    }
    if (record.get(column.get()) == null) {
      return Verdict.NO_ID;
    }
    if (recording != null) {
      recording.add(new Judged(eventId, record, t, wp, placeOf(eventId, wp)));
      return Verdict.FIRST;
    }
    if (decided != null) {
      Decided d = decided.get(eventId);
      if (d == null) {
        throw new IllegalStateException(
            "event " + eventId + " was not judged when its place in the log was learnt");
      }
      firstOfLast = d.firstOf();
      return d.verdict();
    }
    List<Object> id = new ArrayList<>();
    scope.forEach(c -> id.add(canonical(record.get(c))));
    id.add(canonical(record.get(column.get())));
    First first = seen.get(id);
    if (first != null && wp != null && !wp.isBefore(first.time().plus(horizon))) {
      first = null; // the horizon has passed for this event's partition
    }
    if (first == null) {
      seen.put(id, new First(record, t, eventId));
      return Verdict.FIRST;
    }
    firstOfLast = first.eventId();
    for (String c : source.schema().keySet()) {
      if (!ColumnValues.sameValue(first.record().get(c), record.get(c))) {
        return Verdict.CONFLICT;
      }
    }
    return Verdict.DUPLICATE;
  }

  /**
   * The quarantine reason of the last {@link Verdict#CONFLICT} judged, for event {@code record}.
   */
  String conflictReason(Map<String, Object> record) {
    String[] place = firstOfLast.split("-");
    // the id as the pipeline names it (DeclaredId): text without quotes, numbers by value
    return "event_id `"
        + column.get()
        + "` = "
        + DeclaredId.text(record.get(column.get()))
        + " was first seen at partition "
        + place[0]
        + " offset "
        + place[1]
        + " with another payload; a repeated id must repeat its event exactly";
  }

  /** The quarantine reason of an event without a value for the id column. */
  String noIdReason() {
    return "no value for event_id column `"
        + column.get()
        + "`; an event without its id cannot be"
        + " told from a repeat";
  }

  /** The place of event {@code <partition>-<offset>} that arrived when its partition was at wp. */
  static LogPlace placeOf(String eventId, Instant wp) {
    int dash = eventId.indexOf('-');
    return new LogPlace(
        wp,
        Integer.parseInt(eventId.substring(0, dash)),
        Long.parseLong(eventId.substring(dash + 1)));
  }

  /** Ids compare by value: 7 and 7.0 of a decimal id are one id. */
  private static Object canonical(Object v) {
    return v instanceof java.math.BigDecimal ? ((java.math.BigDecimal) v).stripTrailingZeros() : v;
  }
}
