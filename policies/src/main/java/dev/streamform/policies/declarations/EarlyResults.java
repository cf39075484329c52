package dev.streamform.policies.declarations;

import com.google.auto.value.AutoValue;
import dev.streamform.core.time.Durations;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When a windowed model shows a preview of a window before the watermark passes its end
 * (docs/semantics.md §6, {@code early_results}): {@link #none()} (the default), after every N-th
 * on-time event of a key's window ({@link #everyEvents(int)}, deterministic), or every interval of
 * processing time ({@link #everyInterval(Duration)}, production only; fixtures do not compare those
 * previews). Previews are not revisions. Immutable.
 */
@AutoValue
public abstract class EarlyResults {

  /** The three kinds of {@code early_results}. */
  public enum Kind {
    /** No previews. */
    NONE,
    /** A preview after every N-th on-time event of a key's window. */
    EVERY_EVENTS,
    /** A preview every interval of processing time. */
    EVERY_INTERVAL
  }

  /** What {@link #parse(String)} accepts, as messages show it. */
  public static final String FORMS =
      "none, every N events (N a whole number from 1) or every <duration>";

  private static final Pattern EVERY = Pattern.compile("every\\s+(\\S+)(?:\\s+(\\S+))?");

  public abstract Kind kind();

  abstract int events();

  abstract Optional<Duration> interval();

  /** No previews: a window's first result is its revision 1. */
  public static EarlyResults none() {
    return new AutoValue_EarlyResults(Kind.NONE, 0, Optional.empty());
  }

  /**
   * A preview after every {@code n}-th on-time event of a key's window.
   *
   * @throws IllegalArgumentException when {@code n < 1}
   */
  public static EarlyResults everyEvents(int n) {
    if (n < 1) {
      throw new IllegalArgumentException(
          "early results every " + n + " events: N must be 1 or more");
    }
    return new AutoValue_EarlyResults(Kind.EVERY_EVENTS, n, Optional.empty());
  }

  /**
   * A preview every {@code interval} of processing time.
   *
   * @throws IllegalArgumentException when {@code interval} is not a positive whole number of
   *     milliseconds
   */
  public static EarlyResults everyInterval(Duration interval) {
    if (interval.isNegative() || interval.isZero() || interval.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(
          "early results every "
              + interval
              + ": the interval must be whole milliseconds longer than 0s");
    }
    return new AutoValue_EarlyResults(Kind.EVERY_INTERVAL, 0, Optional.of(interval));
  }

  /**
   * Reads {@code none}, {@code every N events} ({@code every 1 event} too) or {@code every
   * <duration>}; case and spacing do not matter.
   *
   * @throws IllegalArgumentException quoting {@code text} and saying what to write instead
   */
  public static EarlyResults parse(String text) {
    String t = text == null ? "" : text.trim().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    if (t.equals("none")) {
      return none();
    }
    Matcher m = EVERY.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not " + FORMS);
    }
    String amount = m.group(1);
    String unit = m.group(2);
    if (unit == null) {
      if (amount.matches("-?\\d+")) {
        throw new IllegalArgumentException(
            "'"
                + text
                + "' says neither events nor a unit of time;"
                + " write every "
                + amount
                + " events or every "
                + amount
                + "s");
      }
      Duration interval;
      try {
        interval = Durations.parse(amount);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "'" + text + "' is not " + FORMS + ": " + e.getMessage());
      }
      if (interval.isZero()) {
        throw new IllegalArgumentException("'" + text + "': the interval must be longer than 0s");
      }
      return everyInterval(interval);
    }
    if (!unit.equals("events") && !unit.equals("event")) {
      String meant =
          !amount.matches("\\d+")
              ? ""
              : unit.matches("ms|s|m|h|d")
                  ? " (did you mean every " + amount + unit + "?)"
                  : " (did you mean every " + amount + " events?)";
      throw new IllegalArgumentException("'" + text + "' is not " + FORMS + meant);
    }
    if (!amount.matches("\\d+") || amount.matches("0+")) {
      throw new IllegalArgumentException("'" + text + "': N must be a whole number from 1");
    }
    int n;
    try {
      n = Integer.parseInt(amount);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "': N is too large");
    }
    if (unit.equals("event") && n != 1) {
      throw new IllegalArgumentException(
          "'" + text + "' is not " + FORMS + " (did you mean every " + n + " events?)");
    }
    return everyEvents(n);
  }

  /**
   * N of {@code every N events}.
   *
   * @throws IllegalStateException for another kind
   */
  public int everyEvents() {
    if (kind() != Kind.EVERY_EVENTS) {
      throw new IllegalStateException("early results " + yamlText() + " are not every N events");
    }
    return events();
  }

  /**
   * The interval of {@code every <duration>}.
   *
   * @throws IllegalStateException for another kind
   */
  public Duration everyInterval() {
    if (kind() != Kind.EVERY_INTERVAL) {
      throw new IllegalStateException("early results " + yamlText() + " are not every <duration>");
    }
    return interval().get();
  }

  public boolean isNone() {
    return kind() == Kind.NONE;
  }

  /**
   * The canonical spelling, which {@link #parse(String)} reads back: {@code none}, {@code every 1
   * event}, {@code every 3 events}, {@code every 30s} (the duration in its canonical spelling).
   */
  public String yamlText() {
    switch (kind()) {
      case NONE:
        return "none";
      case EVERY_EVENTS:
        return "every " + events() + (events() == 1 ? " event" : " events");
      default:
        return "every " + Durations.format(interval().get());
    }
  }

  @Override
  public final String toString() {
    return yamlText();
  }
}
