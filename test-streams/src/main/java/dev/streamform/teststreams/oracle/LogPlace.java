package dev.streamform.teststreams.oracle;

import java.time.Instant;
import java.util.Comparator;

/**
 * An event's place in log order (docs/semantics.md §3.1, ADR 0017): its stamp — its partition's
 * watermark at its arrival, undefined first — then its partition, then its offset. A function of
 * the per-partition logs, whatever order their items were delivered in: the order in which the
 * keyed stages apply events, and so the order in which the oracles judge repeats of an id and apply
 * a key's events.
 *
 * @param stamp {@code W_p} at the event's arrival; null while undefined
 */
record LogPlace(Instant stamp, int partition, long offset) implements Comparable<LogPlace> {
  private static final Comparator<LogPlace> ORDER =
      Comparator.comparing(LogPlace::stamp, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparingInt(LogPlace::partition)
          .thenComparingLong(LogPlace::offset);

  @Override
  public int compareTo(LogPlace other) {
    return ORDER.compare(this, other);
  }
}
