package dev.streamform.policies.declarations;

import com.google.auto.value.AutoValue;
import dev.streamform.core.time.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The windows of a windowed model (docs/semantics.md §6): windows of {@link #size()} that start at every
 * multiple of {@link #every()} from the epoch, in UTC. Tumbling windows ({@code window: 1h}) have
 * {@code every == size}, so each instant is in exactly one window; hopping windows ({@code window:
 * {size: 1h, every: 15m}}) overlap, each instant being in {@code size / every} of them. Both
 * durations are positive whole milliseconds and {@code size} is a multiple of {@code every}, so no
 * instant falls between windows. Immutable.
 */
@AutoValue
public abstract class WindowSpec {

  /** How long each window is: {@code [start, start + size)}. */
  public abstract Duration size();

  /**
   * The most windows one event may belong to ({@code size / every}) in a declared model: {@code
   * streamform check} refuses more (a {@code {size: 30d, every: 1ms}} would put each event in 2.6
   * billion windows and never finish).
   */
  public static final long MAX_WINDOWS_PER_EVENT = 10_000;

  /** How far apart window starts are; equal to {@link #size()} for tumbling windows. */
  public abstract Duration every();

  /**
   * Tumbling windows of {@code size}.
   *
   * @throws IllegalArgumentException when {@code size} is not a positive whole number of milliseconds
   */
  public static WindowSpec tumbling(Duration size) {
    return hopping(size, size);
  }

  /**
   * Hopping windows of {@code size} starting every {@code every}.
   *
   * @throws IllegalArgumentException when a duration is not a positive whole number of
   *     milliseconds, {@code every} is longer than {@code size}, or {@code size} is not a multiple
   *     of {@code every}
   */
  public static WindowSpec hopping(Duration size, Duration every) {
    checkPositiveMillis(size, "size");
    checkPositiveMillis(every, "every");
    if (every.compareTo(size) > 0) {
      throw new IllegalArgumentException("every (" + Durations.format(every)
          + ") is longer than the window's size (" + Durations.format(size)
          + "): events between windows would belong to none");
    }
    if (size.toMillis() % every.toMillis() != 0) {
      throw new IllegalArgumentException("the window's size (" + Durations.format(size)
          + ") is not a multiple of every (" + Durations.format(every) + ")");
    }
    return new AutoValue_WindowSpec(size, every);
  }

  /** True when windows overlap ({@code every < size}). */
  public boolean isHopping() {
    return !every().equals(size());
  }

  /**
   * The starts of the windows that contain {@code t}, earliest first: one for tumbling windows,
   * {@code size / every} for hopping ones.
   */
  public List<Instant> startsContaining(Instant t) {
    long every = every().toMillis();
    long latest = Math.floorDiv(t.toEpochMilli(), every) * every;
    List<Instant> starts = new ArrayList<>();
    for (long start = latest - size().toMillis() + every; start <= latest; start += every) {
      starts.add(Instant.ofEpochMilli(start));
    }
    return starts;
  }

  /** True when {@code start} is the start of a window: a multiple of {@link #every()} from the epoch. */
  public boolean isStart(Instant start) {
    return start.getNano() % 1_000_000 == 0
        && Math.floorMod(start.toEpochMilli(), every().toMillis()) == 0;
  }

  /** The end (exclusive) of the window that starts at {@code start}. */
  public Instant endOf(Instant start) {
    return start.plus(size());
  }

  /** As {@code streamform.yml} writes it, canonically: {@code 1h} or {@code {size: 1h, every: 15m}}. */
  public String yamlText() {
    return isHopping()
        ? "{size: " + Durations.format(size()) + ", every: " + Durations.format(every()) + "}"
        : Durations.format(size());
  }

  /** In words: {@code tumbling 1h} or {@code hopping 1h every 15m}. */
  public String describe() {
    return isHopping()
        ? "hopping " + Durations.format(size()) + " every " + Durations.format(every())
        : "tumbling " + Durations.format(size());
  }

  @Override
  public final String toString() {
    return describe();
  }

  private static void checkPositiveMillis(Duration d, String what) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("a window's " + what + " must be longer than 0s, not " + d);
    }
    if (d.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException("a window's " + what + " must be whole milliseconds, not " + d);
    }
  }
}
