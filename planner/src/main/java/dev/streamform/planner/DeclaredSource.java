package dev.streamform.planner;

import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.dedup.Deduplicate;
import java.util.Optional;
import org.apache.beam.sdk.schemas.Schema;

/**
 * A source of {@code sources.yml} turned into what runs it: the Beam schema of its records, its
 * declared clock and, with {@code event_id}, its duplicate detection. Fixtures and production
 * pipelines take the clock from here, so both judge events by the same declaration.
 */
public final class DeclaredSource {
  private final SourceDeclaration source;

  private DeclaredSource(SourceDeclaration source) {
    this.source = source;
  }

  public static DeclaredSource of(SourceDeclaration source) {
    return new DeclaredSource(source);
  }

  public SourceDeclaration declaration() {
    return source;
  }

  /** The Beam schema of the source's records. */
  public Schema recordSchema() {
    return Schemas.of(source.schema());
  }

  /**
   * The source's clock as declared: bounded out-of-orderness and late-event policy, judging each
   * partition in offset order; or arrival order only, for a source without {@code event_time}. For
   * fixtures, whose offsets run 0, 1, 2, ... and which a runner may deliver reordered.
   */
  public SourceClock clock() {
    return declaredClock().withContiguousOffsets();
  }

  /**
   * The source's clock as declared, for a log read in offset order per partition whose offsets may
   * have gaps (Kafka: compaction, transaction markers): it judges each partition in arrival order,
   * which KafkaIO keeps equal to offset order, and releases a partition silent for {@code
   * idle_after}.
   */
  public SourceClock logClock() {
    SourceClock clock = declaredClock();
    if (source.idleAfter().isPresent()) {
      clock = clock.withIdleness(Times.toJoda(source.idleAfter().get()));
    }
    return clock;
  }

  /**
   * The source's duplicate detection, when it declares {@code event_id} (with {@code
   * duplicates_within}, whose default the declaration fills in): {@link Deduplicate} by that column
   * within that horizon of event time. Every pipeline applies it right after the clock, so an event
   * is judged late first and a duplicate only if it passed the clock. Empty for a source without
   * {@code event_id}: its pipelines have no such step at all.
   */
  public Optional<Deduplicate> deduplicate() {
    if (source.eventId().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        Deduplicate.byId(source.eventId().get(), Times.toJoda(source.duplicatesWithin().get())));
  }

  private SourceClock declaredClock() {
    if (!source.hasEventTime()) {
      return SourceClock.inArrivalOrder();
    }
    return SourceClock.forBoundedOutOfOrderness(Times.toJoda(source.watermark()))
        .withLateEvents(source.lateEvents());
  }
}
