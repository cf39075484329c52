package com.example.revenue;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowedAggregate;
import dev.streamform.transforms.windows.WindowedResult;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * Revenue per merchant and hour, revised by late refunds for 30 minutes after the hour: a Beam
 * author's pipeline built from Streamform's transforms. Payments are records with the columns
 * {@code merchant_id}, {@code amount} and {@code paid_at}; a payment without a usable {@code
 * paid_at} goes to the pipeline's error handler, with its partition, offset and reason.
 */
public final class HourlyRevenue extends PTransform<PCollection<SourceRecord>, WindowedResult> {

  private final ErrorHandler<BadRecord, ?> badRecords;

  /** {@code badRecords}: {@code pipeline.registerBadRecordErrorHandler(sink)}, closed before run. */
  public HourlyRevenue(ErrorHandler<BadRecord, ?> badRecords) {
    this.badRecords = badRecords;
  }

  /** The windows alone, after a clock: what the fixture test runs. */
  public static WindowedAggregate windows() {
    return WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
        .forModel("hourly_revenue")
        .by("merchant_id")
        .aggregating(Aggregation.sum("amount").as("revenue"), Aggregation.countAll().as("payments"))
        .withAllowedLateness(Duration.standardMinutes(30));
  }

  @Override
  public WindowedResult expand(PCollection<SourceRecord> payments) {
    return payments
        .apply(EventTimeExtraction.from("paid_at").withBadRecordErrorHandler(badRecords))
        .events()
        .apply(SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)).keepingLateEvents())
        .events()
        .apply(windows());
  }
}
