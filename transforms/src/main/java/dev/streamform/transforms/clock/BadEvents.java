package dev.streamform.transforms.clock;

import dev.streamform.transforms.envelope.Envelope;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;

/**
 * An event a keyed stage refuses, as Beam's {@link BadRecord}: the event encoded with its clock's
 * coder (so a sink can write its record and position), and a description that starts with its
 * position, {@code partition 0 offset 4: <reason>}.
 */
public final class BadEvents {
  private BadEvents() {}

  /** {@code event}, refused for {@code reason} (which names the column or id at fault). */
  public static BadRecord of(TimedEvent event, Coder<TimedEvent> coder, String reason)
      throws Exception {
    Envelope e = event.envelope();
    return BadRecord.builder()
        .setRecord(
            BadRecord.Record.builder()
                .setHumanReadableJsonRecord(e.record().toString())
                .addCoderAndEncodedRecord(coder, event)
                .build())
        .setFailure(
            BadRecord.Failure.builder()
                .setDescription(
                    "partition " + e.partition() + " offset " + e.offset() + ": " + reason)
                .build())
        .build();
  }
}
