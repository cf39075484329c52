package dev.streamform.transforms;

import java.io.ObjectStreamException;
import java.io.Serializable;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.schemas.SchemaCoder;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;

/**
 * The coder of Streamform's quarantine collections: Beam's schema coder for {@link BadRecord} (the
 * same schema, encoding and conversions as {@code BadRecord.getCoder(pipeline)}), which Java-
 * serializes as a name rather than as its schema and getters field by field (about 3 KB).
 *
 * <p>Beam serializes a step's coders each time it translates the step to its portable form — the
 * DirectRunner twice for each bundle of a stateless step, {@code Pipeline.run} once for each of its
 * rewrites' matchers — and the steps that quarantine (the event-time extraction, every keyed stage)
 * each have an output of this coder (issue 31, ADR 0167; {@link SchemaForm} did the same for
 * Streamform's own coders). Read back, the form is this JVM's one instance.
 */
public final class BadRecordCoder extends SchemaCoder<BadRecord> {
  private static final long serialVersionUID = 1L;

  private BadRecordCoder(SchemaCoder<BadRecord> beams) {
    super(
        beams.getSchema(),
        beams.getEncodedTypeDescriptor(),
        beams.getToRowFunction(),
        beams.getFromRowFunction());
  }

  /** The coder (one per JVM; Beam's schema registry infers it once, when first asked). */
  public static BadRecordCoder of() {
    return Holder.INSTANCE;
  }

  private static final class Holder {
    static final BadRecordCoder INSTANCE = infer();

    private static BadRecordCoder infer() {
      try {
        return new BadRecordCoder(SchemaRegistry.createDefault().getSchemaCoder(BadRecord.class));
      } catch (NoSuchSchemaException e) {
        throw new IllegalStateException("Beam infers no schema for BadRecord", e);
      }
    }
  }

  private Object writeReplace() throws ObjectStreamException {
    return new Form();
  }

  /** What the coder serializes as: nothing but its class. */
  private static final class Form implements Serializable {
    private static final long serialVersionUID = 1L;

    private Object readResolve() throws ObjectStreamException {
      return of();
    }
  }
}
