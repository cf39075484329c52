package dev.streamform.transforms.decisions;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;

/**
 * One event applied to its key's feature state: the key's state revision it made. The updates of a
 * key, in revision order, are its feature state's history; the last one is its final state.
 */
@AutoValue
public abstract class StateUpdate implements Serializable {
  public abstract Row key();

  public abstract String eventId();

  public abstract Instant occurredAt();

  /** The key's state revision after this event (1 for its first). */
  public abstract long stateRevision();

  /** True for a late event applied by {@code late_updates_state: true}. */
  public abstract boolean late();

  static StateUpdate of(Row key, String eventId, Instant occurredAt, long revision, boolean late) {
    return new AutoValue_StateUpdate(key, eventId, occurredAt, revision, late);
  }
}
