package dev.streamform.teststreams.oracle;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * When things happened in a fixture, as an oracle saw it while it played the items in delivery
 * order: for each event its item number ({@code given:} position, from 0), partition, event time,
 * its partition's watermark {@code W_p} at its arrival and how the clock or the windows judged it;
 * each partition's {@code W_p} after every item that changed it; the item at which each window
 * record was emitted; and, for an upsert model, where a key's state was found expired. The item
 * number {@link #items()} stands for the end of the input.
 *
 * <p>It records the oracle's own decisions and computes nothing: a picture drawn from it shows
 * exactly what docs/semantics.md §2, §3 and §6 say happens, and a runner's outcome can be laid over
 * it.
 */
public final class Timeline {

  /** How an event was judged on arrival. */
  public enum Judgement {
    /** Not behind {@code W_p} (or {@code W_p} undefined): processed, on time for its windows. */
    ON_TIME,
    /** Windowed: behind a window's end but within its allowed lateness — a correction. */
    CORRECTION,
    /** Behind {@code W_p} and dropped (upsert), or refused by every window as too late. */
    LATE,
    /** Behind {@code W_p} and processed anyway ({@code late_events: keep}). */
    LATE_KEPT,
    /**
     * No event time, or ({@code event_id}) a repeated id with another payload: quarantined, never
     * processed.
     */
    QUARANTINED,
    /** Passed the clock, then dropped as a repeat of an earlier event ({@code event_id}). */
    DUPLICATE
  }

  /** One event: {@code time} null when it has none, {@code watermark} null while undefined. */
  public record Event(
      int item,
      String eventId,
      int partition,
      Instant time,
      Instant watermark,
      Judgement judgement) {}

  /** Partition {@code partition}'s {@code W_p} became {@code value} at item {@code item}. */
  public record WatermarkStep(int item, int partition, Instant value) {}

  /**
   * A window record emitted at item {@code item} ({@link #items()}: at the end of the input):
   * {@code status} is early, on_time, corrected or final.
   */
  public record Emission(
      int item,
      String status,
      int revision,
      Instant windowStart,
      Instant windowEnd,
      Map<String, Object> key) {}

  /**
   * A key's state found expired at item {@code item} (the arriving event's {@code W_p} had reached
   * {@code latest + retention}, the edge {@code expiredAt}); the key starts over there.
   */
  public record Expiry(int item, List<Object> key, Instant expiredAt) {}

  private final int items;
  private final TreeSet<Integer> partitions = new TreeSet<>();
  private final List<Event> events = new ArrayList<>();
  private final List<WatermarkStep> watermarks = new ArrayList<>();
  private final List<Emission> emissions = new ArrayList<>();
  private final List<Expiry> expiries = new ArrayList<>();

  Timeline(int items) {
    this.items = items;
  }

  void event(int item, String id, int partition, Instant time, Instant watermark, Judgement j) {
    partitions.add(partition);
    events.add(new Event(item, id, partition, time, watermark, j));
  }

  /** The event of {@code item}, judged already, was quarantined after all (its sum overflowed). */
  void quarantined(int item) {
    for (int i = events.size() - 1; i >= 0; i--) {
      Event e = events.get(i);
      if (e.item() == item) {
        events.set(
            i,
            new Event(
                item, e.eventId(), e.partition(), e.time(), e.watermark(), Judgement.QUARANTINED));
        return;
      }
    }
  }

  /** Records {@code W_p} at {@code item} when it differs from the last recorded value. */
  void watermark(int item, int partition, Instant value) {
    if (value == null) {
      return;
    }
    partitions.add(partition);
    for (int i = watermarks.size() - 1; i >= 0; i--) {
      WatermarkStep s = watermarks.get(i);
      if (s.partition() == partition) {
        if (s.value().equals(value)) {
          return;
        }
        break;
      }
    }
    watermarks.add(new WatermarkStep(item, partition, value));
  }

  void emission(
      int item, String status, int revision, Instant start, Instant end, Map<String, Object> key) {
    emissions.add(new Emission(item, status, revision, start, end, key));
  }

  void expiry(int item, List<Object> key, Instant expiredAt) {
    expiries.add(new Expiry(item, List.copyOf(key), expiredAt));
  }

  /**
   * Puts the events and expiries in item order (a stable sort), for an oracle that judged them in
   * log order.
   */
  void inItemOrder() {
    events.sort(Comparator.comparingInt(Event::item));
    expiries.sort(Comparator.comparingInt(Expiry::item));
  }

  /** The number of {@code given:} items; as an item number, the end of the input. */
  public int items() {
    return items;
  }

  /** The partitions with an event or a watermark, ascending. */
  public List<Integer> partitions() {
    return List.copyOf(partitions);
  }

  /** The events in delivery order. */
  public List<Event> events() {
    return List.copyOf(events);
  }

  /** Each partition's {@code W_p} changes, in item order. */
  public List<WatermarkStep> watermarks() {
    return List.copyOf(watermarks);
  }

  /** A windowed model's records in emission order; empty for an upsert model. */
  public List<Emission> emissions() {
    return List.copyOf(emissions);
  }

  /** An upsert model's expired key states, in item order; empty for a windowed model. */
  public List<Expiry> expiries() {
    return List.copyOf(expiries);
  }
}
