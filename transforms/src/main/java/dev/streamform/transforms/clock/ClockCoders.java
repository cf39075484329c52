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
import org.joda.time.Instant;

/** Coders for the clock's outputs, built on the {@link EnvelopeCoder} of the input. */
public final class ClockCoders {
  private ClockCoders() {}

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
