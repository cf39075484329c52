package dev.streamform.sink;

import com.google.auto.value.AutoValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A record the sink refused (docs/semantics.md §8): the same {@code (projection_id, revision)}
 * offered with another digest than the one stored or held, or a final record that contradicts its
 * projection. The stored revision is never overwritten; the refusal is recorded in {@code
 * streamform.revision_conflict} and reported here.
 */
@AutoValue
public abstract class RevisionConflict implements Serializable {
  public abstract String model();

  public abstract String projectionId();

  public abstract int generation();

  public abstract int revision();

  /** True when the refused record is a window's final record. */
  public abstract boolean isFinal();

  /** Why it was refused, in words. */
  public abstract String reason();

  /** The digest the database holds for that revision, when it holds one. */
  public abstract @Nullable String storedDigest();

  public abstract String offeredDigest();

  public static RevisionConflict of(
      String model,
      String projectionId,
      int generation,
      int revision,
      boolean isFinal,
      String reason,
      @Nullable String storedDigest,
      String offeredDigest) {
    return new AutoValue_RevisionConflict(
        model, projectionId, generation, revision, isFinal, reason, storedDigest, offeredDigest);
  }

  /** One line for a log or a terminal. */
  public String describe() {
    return (isFinal() ? "final record of revision " : "revision ")
        + revision()
        + " of projection "
        + projectionId().substring(0, 12)
        + " (model "
        + model()
        + ", generation "
        + generation()
        + ") refused: "
        + reason();
  }

  /** The coder of {@link RevisionConflict}s. */
  public static final class Coder extends AtomicCoder<RevisionConflict> {
    private static final Coder INSTANCE = new Coder();
    private static final NullableCoder<String> NULLABLE = NullableCoder.of(StringUtf8Coder.of());

    public static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(RevisionConflict c, OutputStream out) throws IOException {
      StringUtf8Coder.of().encode(c.model(), out);
      StringUtf8Coder.of().encode(c.projectionId(), out);
      VarIntCoder.of().encode(c.generation(), out);
      VarIntCoder.of().encode(c.revision(), out);
      BooleanCoder.of().encode(c.isFinal(), out);
      StringUtf8Coder.of().encode(c.reason(), out);
      NULLABLE.encode(c.storedDigest(), out);
      StringUtf8Coder.of().encode(c.offeredDigest(), out);
    }

    @Override
    public RevisionConflict decode(InputStream in) throws IOException {
      return RevisionConflict.of(
          StringUtf8Coder.of().decode(in),
          StringUtf8Coder.of().decode(in),
          VarIntCoder.of().decode(in),
          VarIntCoder.of().decode(in),
          BooleanCoder.of().decode(in),
          StringUtf8Coder.of().decode(in),
          NULLABLE.decode(in),
          StringUtf8Coder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
