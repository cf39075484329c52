package dev.streamform.transforms.decisions;

import dev.streamform.transforms.RowCoders;
import dev.streamform.transforms.SchemaForm;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.DoubleCoder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.MapCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.RowCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;

/**
 * Hand-written coders for the outputs of {@link ScoreEvents}, field by field (issue 30): Java
 * serialization ties the bytes to the classes' layout and is slow. Enums are written by name, so
 * reordering or adding a constant never turns one value into another.
 */
public final class DecisionCoders {
  private static final Coder<String> TEXT = StringUtf8Coder.of();
  private static final Coder<String> OPTIONAL_TEXT = NullableCoder.of(StringUtf8Coder.of());
  private static final Coder<Instant> AT = InstantCoder.of();
  private static final Coder<Instant> OPTIONAL_AT = NullableCoder.of(InstantCoder.of());
  private static final Coder<Integer> INT = VarIntCoder.of();
  private static final Coder<Long> LONG = VarLongCoder.of();
  private static final Coder<Map<String, Double>> FEATURES =
      MapCoder.of(StringUtf8Coder.of(), DoubleCoder.of());
  private static final Coder<List<String>> IDS = ListCoder.of(StringUtf8Coder.of());

  private DecisionCoders() {}

  /** A coder whose components are the row coders of the model's keys and records. */
  abstract static class RowsCoder<T> extends StructuredCoder<T> {
    private final List<Coder<?>> rows;

    RowsCoder(Coder<?>... rows) {
      this.rows = List.of(rows);
    }

    @Override
    public final List<? extends Coder<?>> getCoderArguments() {
      return List.of();
    }

    @Override
    public final List<? extends Coder<?>> getComponents() {
      return rows;
    }

    @Override
    public final void verifyDeterministic() throws NonDeterministicException {
      for (Coder<?> row : rows) {
        row.verifyDeterministic();
      }
    }
  }

  /** Coder for {@link Decision}s with the given key and record schemas. */
  public static final class DecisionCoder extends RowsCoder<Decision> {
    private final RowCoder keys;
    private final RowCoder records;

    private DecisionCoder(Schema keySchema, Schema recordSchema) {
      this(RowCoders.of(keySchema), RowCoders.of(recordSchema));
    }

    private DecisionCoder(RowCoder keys, RowCoder records) {
      super(keys, records);
      this.keys = keys;
      this.records = records;
    }

    public static DecisionCoder of(Schema keySchema, Schema recordSchema) {
      return new DecisionCoder(keySchema, recordSchema);
    }

    @Override
    public void encode(Decision d, OutputStream out) throws IOException {
      TEXT.encode(d.model(), out);
      keys.encode(d.key(), out);
      records.encode(d.event(), out);
      TEXT.encode(d.eventId(), out);
      INT.encode(d.partition(), out);
      LONG.encode(d.offset(), out);
      AT.encode(d.occurredAt(), out);
      AT.encode(d.arrivedAt(), out);
      OPTIONAL_AT.encode(d.arrivalWatermark(), out);
      AT.encode(d.scoredAt(), out);
      TEXT.encode(d.contract().name(), out);
      AT.encode(d.stateCutoff(), out);
      LONG.encode(d.stateRevision(), out);
      FEATURES.encode(d.features(), out);
      DoubleCoder.of().encode(d.score(), out);
      TEXT.encode(d.modelDigest(), out);
      TEXT.encode(d.preprocessingDigest(), out);
      INT.encode(d.policyGeneration(), out);
      INT.encode(d.revision(), out);
      OPTIONAL_TEXT.encode(d.supersedes(), out);
      OPTIONAL_TEXT.encode(d.revisedBy(), out);
      TEXT.encode(d.decisionId(), out);
    }

    @Override
    public Decision decode(InputStream in) throws IOException {
      Decision d =
          Decision.builder()
              .setModel(TEXT.decode(in))
              .setKey(keys.decode(in))
              .setEvent(records.decode(in))
              .setEventId(TEXT.decode(in))
              .setPartition(INT.decode(in))
              .setOffset(LONG.decode(in))
              .setOccurredAt(AT.decode(in))
              .setArrivedAt(AT.decode(in))
              .setArrivalWatermark(OPTIONAL_AT.decode(in))
              .setScoredAt(AT.decode(in))
              .setContract(FeatureContract.valueOf(TEXT.decode(in)))
              .setStateCutoff(AT.decode(in))
              .setStateRevision(LONG.decode(in))
              .setFeatures(new TreeMap<>(FEATURES.decode(in)))
              .setScore(DoubleCoder.of().decode(in))
              .setModelDigest(TEXT.decode(in))
              .setPreprocessingDigest(TEXT.decode(in))
              .setPolicyGeneration(INT.decode(in))
              .setRevision(INT.decode(in))
              .setSupersedes(OPTIONAL_TEXT.decode(in))
              .setRevisedBy(OPTIONAL_TEXT.decode(in))
              .build();
      String written = TEXT.decode(in);
      if (!written.equals(d.decisionId())) {
        // the id is a hash of the fields above: a difference means the bytes are not a decision's
        throw new IOException(
            "a decision's id does not match its fields: written "
                + written
                + ", computed "
                + d.decisionId());
      }
      return d;
    }

    private Object writeReplace() {
      return new Form(SchemaForm.of(keys), SchemaForm.of(records));
    }

    /** What this coder serializes as: its schemas as their portable bytes ({@link SchemaForm}). */
    private static final class Form implements Serializable {
      private static final long serialVersionUID = 1L;
      private final SchemaForm keys;
      private final SchemaForm records;

      Form(SchemaForm keys, SchemaForm records) {
        this.keys = keys;
        this.records = records;
      }

      private Object readResolve() {
        return DecisionCoder.of(keys.schema(), records.schema());
      }
    }
  }

  /** Coder for {@link UnscoredLateEvent}s with the given key and record schemas. */
  public static final class UnscoredLateEventCoder extends RowsCoder<UnscoredLateEvent> {
    private final RowCoder keys;
    private final RowCoder records;

    private UnscoredLateEventCoder(Schema keySchema, Schema recordSchema) {
      this(RowCoders.of(keySchema), RowCoders.of(recordSchema));
    }

    private UnscoredLateEventCoder(RowCoder keys, RowCoder records) {
      super(keys, records);
      this.keys = keys;
      this.records = records;
    }

    public static UnscoredLateEventCoder of(Schema keySchema, Schema recordSchema) {
      return new UnscoredLateEventCoder(keySchema, recordSchema);
    }

    @Override
    public void encode(UnscoredLateEvent e, OutputStream out) throws IOException {
      TEXT.encode(e.model(), out);
      keys.encode(e.key(), out);
      records.encode(e.event(), out);
      TEXT.encode(e.eventId(), out);
      INT.encode(e.partition(), out);
      LONG.encode(e.offset(), out);
      AT.encode(e.occurredAt(), out);
      OPTIONAL_AT.encode(e.arrivalWatermark(), out);
      TEXT.encode(e.action().name(), out);
      BooleanCoder.of().encode(e.updatedState(), out);
      IDS.encode(e.affectedDecisions(), out);
      OPTIONAL_TEXT.encode(e.reason(), out);
    }

    @Override
    public UnscoredLateEvent decode(InputStream in) throws IOException {
      return UnscoredLateEvent.of(
          TEXT.decode(in),
          keys.decode(in),
          records.decode(in),
          TEXT.decode(in),
          INT.decode(in),
          LONG.decode(in),
          AT.decode(in),
          OPTIONAL_AT.decode(in),
          LateAction.valueOf(TEXT.decode(in)),
          BooleanCoder.of().decode(in),
          IDS.decode(in),
          OPTIONAL_TEXT.decode(in));
    }

    private Object writeReplace() {
      return new Form(SchemaForm.of(keys), SchemaForm.of(records));
    }

    /** What this coder serializes as: its schemas as their portable bytes ({@link SchemaForm}). */
    private static final class Form implements Serializable {
      private static final long serialVersionUID = 1L;
      private final SchemaForm keys;
      private final SchemaForm records;

      Form(SchemaForm keys, SchemaForm records) {
        this.keys = keys;
        this.records = records;
      }

      private Object readResolve() {
        return UnscoredLateEventCoder.of(keys.schema(), records.schema());
      }
    }
  }

  /** Coder for {@link DeadLetter}s whose record (when the event got that far) has a schema. */
  public static final class DeadLetterCoder extends RowsCoder<DeadLetter> {
    private final NullableCoder<Row> records;

    private DeadLetterCoder(Schema recordSchema) {
      this(NullableCoder.of(RowCoders.of(recordSchema)));
    }

    private DeadLetterCoder(NullableCoder<Row> records) {
      super(records);
      this.records = records;
    }

    public static DeadLetterCoder of(Schema recordSchema) {
      return new DeadLetterCoder(recordSchema);
    }

    @Override
    public void encode(DeadLetter d, OutputStream out) throws IOException {
      TEXT.encode(d.reason().name(), out);
      TEXT.encode(d.description(), out);
      OPTIONAL_TEXT.encode(d.eventId(), out);
      TEXT.encode(d.record(), out);
      records.encode(d.row(), out);
    }

    @Override
    public DeadLetter decode(InputStream in) throws IOException {
      return new AutoValue_DeadLetter(
          DeadLetter.Reason.valueOf(TEXT.decode(in)),
          TEXT.decode(in),
          OPTIONAL_TEXT.decode(in),
          TEXT.decode(in),
          records.decode(in));
    }

    private Object writeReplace() {
      return new Form(SchemaForm.of(records));
    }

    /** What this coder serializes as: its schemas as their portable bytes ({@link SchemaForm}). */
    private static final class Form implements Serializable {
      private static final long serialVersionUID = 1L;
      private final SchemaForm records;

      Form(SchemaForm records) {
        this.records = records;
      }

      private Object readResolve() {
        return DeadLetterCoder.of(records.schema());
      }
    }
  }

  /** Coder for {@link StateUpdate}s with the given key schema. */
  public static final class StateUpdateCoder extends RowsCoder<StateUpdate> {
    private final RowCoder keys;

    private StateUpdateCoder(Schema keySchema) {
      this(RowCoders.of(keySchema));
    }

    private StateUpdateCoder(RowCoder keys) {
      super(keys);
      this.keys = keys;
    }

    public static StateUpdateCoder of(Schema keySchema) {
      return new StateUpdateCoder(keySchema);
    }

    @Override
    public void encode(StateUpdate u, OutputStream out) throws IOException {
      keys.encode(u.key(), out);
      TEXT.encode(u.eventId(), out);
      AT.encode(u.occurredAt(), out);
      LONG.encode(u.stateRevision(), out);
      BooleanCoder.of().encode(u.late(), out);
    }

    @Override
    public StateUpdate decode(InputStream in) throws IOException {
      return StateUpdate.of(
          keys.decode(in),
          TEXT.decode(in),
          AT.decode(in),
          LONG.decode(in),
          BooleanCoder.of().decode(in));
    }

    private Object writeReplace() {
      return new Form(SchemaForm.of(keys));
    }

    /** What this coder serializes as: its schemas as their portable bytes ({@link SchemaForm}). */
    private static final class Form implements Serializable {
      private static final long serialVersionUID = 1L;
      private final SchemaForm keys;

      Form(SchemaForm keys) {
        this.keys = keys;
      }

      private Object readResolve() {
        return StateUpdateCoder.of(keys.schema());
      }
    }
  }
}
