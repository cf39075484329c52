package dev.streamform.transforms.clock;

import dev.streamform.transforms.envelope.Envelope;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.TupleTag;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * An event a keyed stage refuses, as Beam's {@link BadRecord}: the event encoded with its clock's
 * coder (so a sink can write its record and position), and a description that starts with its
 * position, {@code partition 0 offset 4: <reason>}.
 */
public final class BadEvents {
  private BadEvents() {}

  /**
   * Refuses {@code event} for {@code overflow}'s reason: to {@code refused} when the stage has that
   * output (a bad-record handler takes it), counted by {@code quarantined}; without one, fails the
   * pipeline naming the event's partition and offset.
   */
  public static void refuse(
      TimedEvent event,
      Coder<TimedEvent> coder,
      ArithmeticException overflow,
      @Nullable TupleTag<BadRecord> refused,
      DoFn.MultiOutputReceiver out,
      Counter quarantined) {
    Envelope e = event.envelope();
    if (refused == null) {
      throw new ArithmeticException(
          "partition " + e.partition() + " offset " + e.offset() + ": " + overflow.getMessage());
    }
    refuse(event, coder, overflow.getMessage(), refused, out, quarantined);
  }

  /**
   * Refuses {@code event} for {@code reason}, as {@link #refuse(TimedEvent, Coder,
   * ArithmeticException, TupleTag, DoFn.MultiOutputReceiver, Counter)} does (without a bad-record
   * output: an {@link IllegalArgumentException} naming the event's partition and offset).
   */
  public static void refuse(
      TimedEvent event,
      Coder<TimedEvent> coder,
      String reason,
      @Nullable TupleTag<BadRecord> refused,
      DoFn.MultiOutputReceiver out,
      Counter quarantined) {
    Envelope e = event.envelope();
    if (refused == null) {
      throw new IllegalArgumentException(
          "partition " + e.partition() + " offset " + e.offset() + ": " + reason);
    }
    quarantined.inc();
    try {
      out.get(refused).outputWithTimestamp(of(event, coder, reason), e.eventTime());
    } catch (Exception encoding) {
      throw new IllegalStateException("cannot encode a refused event: " + encoding, encoding);
    }
  }

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
