package dev.streamform.transforms.clock;

import java.io.Serializable;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerMap;

/**
 * Where a keyed stage's timers live: as declared ({@code @TimerId}), or — on the DirectRunner,
 * whose bookkeeping of pending timers is not per key — one member per key and name of the stage's
 * timer family {@link #FAMILY}, so that no two keys ever share a timer (ADR 0075).
 *
 * <p>Why: the DirectRunner keeps the pending timers of a stage, and the watermark holds their
 * output timestamps make, in one multiset across keys, and removes a timer from it by value. A
 * timer carries no key, so two keys' ticks that are due at the same time and hold at the same time
 * are one value. When one key's tick fires and is set again, the runner removes that value twice —
 * once as the timer being replaced, once as the timer completed — and so also the other key's tick,
 * which then holds nothing while it still waits or runs. The stage's output watermark moves past
 * it, and what that tick releases arrives late at the next keyed stage: seen as a changelog applied
 * out of log order about once in a hundred runs of {@code streamform run} on a file with {@code
 * event_id}. With a timer id per key, two keys' timers are never one value. Other runners keep
 * their timers per key (Flink's keyed timer service), so there the declared timers stay, and with
 * them the timers a savepoint holds.
 */
public final class StageTimers implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The timer family every keyed stage declares next to its named timers. */
  public static final String FAMILY = "perKey";

  private static final char SEPARATOR = '@';

  private final boolean perKey;

  private StageTimers(boolean perKey) {
    this.perKey = perKey;
  }

  /** The timers for a stage of {@code pipeline}: per key on the DirectRunner, else as declared. */
  public static StageTimers of(Pipeline pipeline) {
    String runner = pipeline.getOptions().getRunner().getName();
    return new StageTimers(runner.startsWith("org.apache.beam.runners.direct."));
  }

  /** Whether this stage's timers are members of {@link #FAMILY}, one per key and name. */
  public boolean perKey() {
    return perKey;
  }

  /**
   * The timer {@code name} of {@code key}: the declared one, or the family's member for the key and
   * name.
   */
  public Timer get(String name, Object key, Timer declared, TimerMap family) {
    return perKey ? family.get(name + SEPARATOR + key) : declared;
  }

  /** The name of a family member's timer ({@code tick} for {@code tick@42}). */
  public static String nameOf(String memberId) {
    int at = memberId.indexOf(SEPARATOR);
    return at < 0 ? memberId : memberId.substring(0, at);
  }
}
