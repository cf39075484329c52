package dev.streamform.transforms.clock;

import com.google.auto.value.AutoValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A partition going idle or resuming ({@code idle_after}, docs/semantics.md §2 and §9.7), as {@link
 * SourceClock} observed it: the partition, its policy generation ({@link
 * SourceClock#withGeneration}), its watermark {@code W_p} then, and — on resuming — the first
 * item's offset and event time and the watermark after it, which is never below {@code W_p} (an
 * item behind it is judged late, the watermark stays).
 *
 * <p>In {@link ClockResult#idleMarkers()} (the global window) a resuming marker has its first
 * item's element timestamp, an idle one the idle timer's. Which items a marker falls between
 * depends on processing time, as idleness does: markers are for operators, never an input to a
 * result.
 */
@AutoValue
public abstract class IdleMarker implements Serializable {

  public abstract int partition();

  /** The policy generation the partition was read under. */
  public abstract int generation();

  /** True when the partition went idle; false when it delivered again after being idle. */
  public abstract boolean idle();

  /** {@code W_p} when the partition went idle or, resuming, before its first item; may be null. */
  public abstract @Nullable Instant watermark();

  /** Resuming: the first item's offset; null for an idle marker. */
  public abstract @Nullable Long offset();

  /** Resuming: the first item's event time; null for an idle marker. */
  public abstract @Nullable Instant eventTime();

  /** Resuming: {@code W_p} after the first item was judged; null for an idle marker. */
  public abstract @Nullable Instant watermarkAfter();

  static IdleMarker idle(int partition, int generation, @Nullable Instant watermark) {
    return new AutoValue_IdleMarker(partition, generation, true, watermark, null, null, null);
  }

  static IdleMarker resumed(
      int partition,
      int generation,
      @Nullable Instant watermark,
      long offset,
      Instant eventTime,
      @Nullable Instant watermarkAfter) {
    return new AutoValue_IdleMarker(
        partition, generation, false, watermark, offset, eventTime, watermarkAfter);
  }

  /** A hand-written coder: fields in declaration order, nullable ones with a presence byte. */
  public static final class IdleMarkerCoder extends AtomicCoder<IdleMarker> {
    private static final IdleMarkerCoder INSTANCE = new IdleMarkerCoder();
    private static final Coder<Instant> INSTANT = NullableCoder.of(InstantCoder.of());
    private static final Coder<Long> LONG = NullableCoder.of(VarLongCoder.of());

    public static IdleMarkerCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(IdleMarker m, OutputStream out) throws IOException {
      VarIntCoder.of().encode(m.partition(), out);
      VarIntCoder.of().encode(m.generation(), out);
      BooleanCoder.of().encode(m.idle(), out);
      INSTANT.encode(m.watermark(), out);
      LONG.encode(m.offset(), out);
      INSTANT.encode(m.eventTime(), out);
      INSTANT.encode(m.watermarkAfter(), out);
    }

    @Override
    public IdleMarker decode(InputStream in) throws IOException {
      return new AutoValue_IdleMarker(
          VarIntCoder.of().decode(in),
          VarIntCoder.of().decode(in),
          BooleanCoder.of().decode(in),
          INSTANT.decode(in),
          LONG.decode(in),
          INSTANT.decode(in),
          INSTANT.decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
