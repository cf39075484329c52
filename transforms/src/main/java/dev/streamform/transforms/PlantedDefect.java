package dev.streamform.transforms;

import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.annotations.VisibleForTesting;

/**
 * A defect planted on purpose inside a keyed stage ({@code KeyedChangelog}, {@code
 * WindowedAggregate}, {@code ScoreEvents}, {@code Deduplicate}) or a restore of their state, so
 * that a test can show that the fuzzer and a hand-written fixture catch it in the product's own
 * code rather than in a copy of it (issue 29).
 *
 * <p>Inert in production: {@link #current()} is {@link #NONE} unless a test planted one on its own
 * thread with {@link #plant}; nothing in a declaration, the CLI or a runner option reaches it. A
 * stage reads it once, when its transform expands on the thread that builds the pipeline, and
 * carries the value in its {@code DoFn}; a pipeline built outside {@link #plant}'s scope is
 * unaffected, whichever thread runs it.
 */
@VisibleForTesting
public enum PlantedDefect {
  NONE,

  /** Windows, on-time edge: an event whose partition's watermark is at the end is on time. */
  WINDOW_ON_TIME_AT_END,

  /** Windows, lateness edge: an event at {@code W_p = end + allowed_lateness} is a correction. */
  WINDOW_ACCEPTED_AT_LATENESS_EDGE,

  /**
   * Windows, held corrections: the correction that is a window's revision 1 (no on-time event) is
   * labelled {@code on_time}.
   */
  WINDOW_FIRST_CORRECTION_ON_TIME,

  /**
   * Windows, one revision per correction: a correction after the first one changes the values
   * without emitting a revision (only the final record shows it).
   */
  WINDOW_LATER_CORRECTIONS_SILENT,

  /** Windows, the final record: it is a new revision (last + 1) instead of the last one's. */
  WINDOW_FINAL_IS_NEW_REVISION,

  /** Windows, revision numbering: revision 2, 3, ... names itself as its predecessor. */
  WINDOW_PREDECESSOR_IS_SELF,

  /**
   * Windows, sliding assignment: an event exactly at a window's end is also put into that window
   * (hopping windows only).
   */
  WINDOW_SLIDING_END_INCLUSIVE,

  /** Windows, accumulation: a correction after revision 1 carries its own event only (a delta). */
  WINDOW_CORRECTIONS_AS_DELTAS,

  /**
   * Decisions, the state cutoff: an event that arrived when its partition's watermark was exactly
   * at the decided event's time is read.
   */
  SCORE_CUTOFF_INCLUSIVE,

  /** Decisions, {@code as_of_occurrence}: events later than the decided one are read. */
  SCORE_READS_AFTER_OCCURRENCE,

  /**
   * Decisions, the freed horizon (ADR 0050): an event whose answer reaches below what its key freed
   * while its partition was idle is answered from what is left, as before the fix.
   */
  SCORE_IGNORES_FREED_HORIZON,

  /** Deduplicate, the horizon edge: an id is still kept at {@code first + horizon}. */
  DEDUP_HORIZON_EXCLUSIVE,

  /** Deduplicate, conflict vs duplicate: a repeated id with another payload is a duplicate. */
  DEDUP_CONFLICT_AS_DUPLICATE,

  /**
   * Deduplicate on arrival: the stage is keyed by the id rather than by the model's key (as before
   * issue 31), so a key's events reach the next keyed stage over several channels, in no fixed
   * order.
   */
  DEDUP_ON_ARRIVAL_BY_ID,

  /**
   * A restore from a savepoint (test-streams' {@code SavepointRestore}): the duplicate detection
   * and the scoring stage are renamed (new Flink operator uids) and the job is restored with
   * non-restored state allowed, so both start empty while the source and the clock go on.
   */
  RESTORE_DROPS_KEYED_STATE,

  /**
   * The changelog and the windows, an event whose int64 sum would overflow: it fails the run, as
   * before such events were quarantined, rather than going to the stage's bad records. Also what a
   * test of a run that stops with an error plants.
   */
  OVERFLOW_FAILS_THE_RUN;

  private static final ThreadLocal<PlantedDefect> PLANTED = ThreadLocal.withInitial(() -> NONE);

  /** The defect planted on this thread, {@link #NONE} unless a test called {@link #plant}. */
  public static PlantedDefect current() {
    return PLANTED.get();
  }

  /**
   * Plants {@code defect} for the pipelines this thread builds until the returned scope closes:
   * {@code try (PlantedDefect.Scope s = PlantedDefect.plant(WINDOW_ON_TIME_AT_END)) {...}}.
   */
  @VisibleForTesting
  public static Scope plant(PlantedDefect defect) {
    PlantedDefect before = PLANTED.get();
    PLANTED.set(defect);
    return () -> PLANTED.set(before);
  }

  /** The span of a planted defect; closing it restores what was planted before. */
  public interface Scope extends AutoCloseable {
    @Override
    void close();
  }
}
