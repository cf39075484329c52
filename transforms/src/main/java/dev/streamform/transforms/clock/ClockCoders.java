package dev.streamform.transforms.clock;

import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.PCollection;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/** Coders for the clock's outputs, built on the {@link EnvelopeCoder} of the input. */
public final class ClockCoders {
  private ClockCoders() {}

  /**
   * The clock's coder for the events a keyed stage ({@code KeyedChangelog}, {@code
   * WindowedAggregate}) reads: its input's own, or one for {@code recordSchema} when the author
   * gave the records' schema; otherwise an error that names the stage as written ({@code
   * transform}) and says which {@code setCoder(...)} to add.
   *
   * @param stage what the stage is, for the message: {@code the changelog}
   * @param recordSchema the schema given with {@code withRecordSchema}, or null
   */
  public static TimedEventCoder eventCoder(
      PCollection<TimedEvent> input,
      String transform,
      String stage,
      @Nullable Schema recordSchema) {
    Coder<TimedEvent> given;
    try {
      given = input.getCoder();
    } catch (IllegalStateException noCoder) {
      given = null; // no coder could be inferred: Beam will refuse the pipeline anyway
    }
    String fix =
        " Keep the clock's coder on the step's output — .setCoder(clocked.events().getCoder())"
            + " — or give "
            + stage
            + " the records' schema: "
            + transform
            + ".withRecordSchema(schema)";
    if (given == null) {
      throw new IllegalArgumentException(
          transform
              + ": its input "
              + input.getName()
              + " has no coder, so a step between SourceClock and "
              + stage
              + " left it without one."
              + fix
              + (recordSchema == null ? "" : " (the input still needs a coder of its own)"));
    }
    if (recordSchema != null) {
      if (given instanceof TimedEventCoder) {
        Schema carried = ((TimedEventCoder) given).envelopeCoder().recordSchema();
        if (!carried.equals(recordSchema)) {
          throw new IllegalArgumentException(
              transform
                  + ".withRecordSchema("
                  + recordSchema.getFieldNames()
                  + "): the input's events carry records of another schema, "
                  + carried.getFieldNames()
                  + "; give the schema the source's SourceRecordCoder has");
        }
      }
      return TimedEventCoder.of(EnvelopeCoder.of(recordSchema));
    }
    if (given instanceof TimedEventCoder) {
      return (TimedEventCoder) given;
    }
    throw new IllegalArgumentException(
        transform
            + " reads the events() of a SourceClock, encoded with the coder the clock gives"
            + " them; its input "
            + input.getName()
            + " has "
            + given
            + " instead, so a step between the clock and "
            + stage
            + " (a MapElements, a DoFn) set a coder of its own."
            + fix);
  }

  /** Coder for {@link TimedEvent}. */
  public static final class TimedEventCoder extends StructuredCoder<TimedEvent> {
    private static final Coder<Instant> WATERMARK = NullableCoder.of(InstantCoder.of());
    private final EnvelopeCoder envelopes;

    private TimedEventCoder(EnvelopeCoder envelopes) {
      this.envelopes = envelopes;
    }

    public static TimedEventCoder of(EnvelopeCoder envelopes) {
      return new TimedEventCoder(envelopes);
    }

    public EnvelopeCoder envelopeCoder() {
      return envelopes;
    }

    @Override
    public void encode(TimedEvent value, OutputStream out) throws IOException {
      envelopes.encode(value.envelope(), out);
      WATERMARK.encode(value.watermarkAtArrival(), out);
      BooleanCoder.of().encode(value.keptLate(), out);
      InstantCoder.of().encode(value.stamp(), out);
    }

    @Override
    public TimedEvent decode(InputStream in) throws IOException {
      Envelope e = envelopes.decode(in);
      return TimedEvent.of(
          e, WATERMARK.decode(in), BooleanCoder.of().decode(in), InstantCoder.of().decode(in));
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of();
    }

    @Override
    public List<? extends Coder<?>> getComponents() {
      return List.of(envelopes);
    }

    @Override
    public void verifyDeterministic() throws NonDeterministicException {
      envelopes.verifyDeterministic();
    }
  }

  /** Coder for {@link LateEvent}. */
  public static final class LateEventCoder extends StructuredCoder<LateEvent> {
    private final EnvelopeCoder envelopes;

    private LateEventCoder(EnvelopeCoder envelopes) {
      this.envelopes = envelopes;
    }

    public static LateEventCoder of(EnvelopeCoder envelopes) {
      return new LateEventCoder(envelopes);
    }

    @Override
    public void encode(LateEvent value, OutputStream out) throws IOException {
      envelopes.encode(value.envelope(), out);
      InstantCoder.of().encode(value.watermark(), out);
      StringUtf8Coder.of().encode(value.reason(), out);
    }

    @Override
    public LateEvent decode(InputStream in) throws IOException {
      Envelope e = envelopes.decode(in);
      return LateEvent.of(e, InstantCoder.of().decode(in), StringUtf8Coder.of().decode(in));
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of();
    }

    @Override
    public List<? extends Coder<?>> getComponents() {
      return List.of(envelopes);
    }

    @Override
    public void verifyDeterministic() throws NonDeterministicException {
      envelopes.verifyDeterministic();
    }
  }
}
