package com.example.revenue;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowedAggregate;
import dev.streamform.transforms.windows.WindowedResult;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * Revenue per merchant and hour, revised by late refunds for 30 minutes after the hour: a Beam
 * author's pipeline built from Streamform's transforms. Payments are records with the columns
 * {@code merchant_id}, {@code amount} and {@code paid_at}.
 */
public final class HourlyRevenue extends PTransform<PCollection<SourceRecord>, WindowedResult> {

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
        .apply(EventTimeExtraction.from("paid_at"))
        .events()
        .apply(SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)).keepingLateEvents())
        .events()
        .apply(windows());
  }
}
