package dev.streamform.pipelines.examples;

import static org.apache.beam.sdk.values.TypeDescriptors.strings;

import dev.streamform.transforms.Times;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import dev.streamform.transforms.windows.TooLateEvent;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedAggregate;
import dev.streamform.transforms.windows.WindowedResult;
import java.math.BigDecimal;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Hourly revenue per merchant, written in plain Java with Streamform's transforms — no YAML. Copy
 * it to start a windowed pipeline of your own.
 *
 * <p>Payments ({@link #PAYMENTS}) come as {@link SourceRecord}s, each at its partition and offset
 * (from Kafka, a file, or {@code Create.of} as in {@link #main}). The transform
 *
 * <ol>
 *   <li>reads each payment's event time from {@code paid_at}: a payment without a usable one is
 *       never processed on processing time — it goes to the bad-record handler ({@link
 *       #withBadRecordErrorHandler}), or fails the pipeline when none is set;
 *   <li>judges it against its partition's watermark, which trails the latest {@code paid_at} seen
 *       by 5 minutes; it keeps late payments, since the windows decide what is late for them;
 *   <li>sums {@code amount} as {@code revenue} and counts {@code orders} per merchant and hour:
 *       revision 1 ({@code on_time}) once every partition's watermark has passed the hour's end,
 *       one {@code corrected} revision per payment (a refund, say) that arrives within 24 hours
 *       after that, and a {@code final} record when those 24 hours are over; a payment arriving
 *       later still is refused as too late, and the hour's state is gone.
 * </ol>
 *
 * <pre>{@code
 * WindowedResult hourly = payments.apply(HourlyRevenue.readingPartitions(0, 1));
 * hourly.revisions();  // WindowRevision: merchant, hour, status, revision, revenue, orders, ...
 * hourly.tooLate();    // TooLateEvent: the payment and the hour that refused it
 * }</pre>
 *
 * <p>The same records come on every runner and at any parallelism, because lateness is judged from
 * each partition's own log, never from the runner's watermark (docs/semantics.md §7).
 */
public final class HourlyRevenue extends PTransform<PCollection<SourceRecord>, WindowedResult> {

  /** The payments: {@code paid_at} is an RFC 3339 instant, e.g. {@code 2026-08-30T10:00:00Z}. */
  public static final Schema PAYMENTS =
      Schema.builder()
          .addInt64Field("merchant_id")
          .addDecimalField("amount")
          .addNullableField("paid_at", Schema.FieldType.STRING)
          .build();

  private final List<Integer> partitions;
  private final boolean contiguousOffsets;
  private final @Nullable ErrorHandler<BadRecord, ?> badRecords;

  private HourlyRevenue(
      List<Integer> partitions,
      boolean contiguousOffsets,
      @Nullable ErrorHandler<BadRecord, ?> badRecords) {
    this.partitions = List.copyOf(partitions);
    this.contiguousOffsets = contiguousOffsets;
    this.badRecords = badRecords;
  }

  /**
   * Reads payments from these partitions, each in offset order as it arrives (a Kafka topic's
   * partitions). No hour closes before every one of them has delivered a payment.
   */
  public static HourlyRevenue readingPartitions(Integer... partitions) {
    return new HourlyRevenue(List.of(partitions), false, null);
  }

  /**
   * Offsets run 0, 1, 2, ... without gaps in every partition, so the clock puts payments back in
   * offset order however the runner delivers them ({@code Create.of}, a file; not Kafka, whose
   * offsets have gaps).
   */
  public HourlyRevenue withContiguousOffsets() {
    return new HourlyRevenue(partitions, true, badRecords);
  }

  /** Payments without a usable {@code paid_at} go to {@code handler}, with the reason. */
  public HourlyRevenue withBadRecordErrorHandler(ErrorHandler<BadRecord, ?> handler) {
    return new HourlyRevenue(partitions, contiguousOffsets, handler);
  }

  @Override
  public WindowedResult expand(PCollection<SourceRecord> payments) {
    ExtractionResult extracted = payments.apply("PaidAt", EventTimeExtraction.from("paid_at"));
    if (badRecords != null) {
      badRecords.addErrorCollection(extracted.quarantined());
    } else {
      extracted.quarantined().apply("FailOnBadRecord", ParDo.of(new FailOnBadRecord()));
    }
    SourceClock clock =
        SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
            .keepingLateEvents() // the windows judge lateness, window by window
            .withPartitions(partitions); // the watermark waits for every partition from the start
    if (contiguousOffsets) {
      clock = clock.withContiguousOffsets();
    }
    return extracted
        .events()
        .apply("Clock", clock)
        .events()
        .apply(
            "Hourly",
            WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                .forModel("hourly_revenue") // names the windows' identity (logical_window_id)
                .by("merchant_id")
                .aggregating(
                    Aggregation.sum("amount").as("revenue"), Aggregation.countAll().as("orders"))
                .withAllowedLateness(Duration.standardHours(24)));
  }

  /**
   * A window's record as one line, e.g. {@code merchant 7, hour 2026-08-30T10:00:00Z: on_time
   * revision 1, revenue 30.00, orders 2}.
   */
  public static String describe(WindowRevision r) {
    return "merchant "
        + r.key().getInt64("merchant_id")
        + ", hour "
        + instant(r.windowStart())
        + ": "
        + r.status().yamlName()
        + " revision "
        + r.revision()
        + ", revenue "
        + r.values().getDecimal("revenue").toPlainString()
        + ", orders "
        + r.values().getInt64("orders");
  }

  /** A refused payment as one line. */
  public static String describe(TooLateEvent e) {
    Row payment = e.envelope().record();
    return "merchant "
        + payment.getInt64("merchant_id")
        + ", hour "
        + instant(e.windowStart())
        + ": too late, "
        + payment.getDecimal("amount").toPlainString()
        + " paid at "
        + payment.getString("paid_at")
        + " arrived at watermark "
        + instant(e.watermark());
  }

  /**
   * Runs the sample on the DirectRunner and prints its records, one line each (in no particular
   * order between merchants and hours). From an IDE, or once {@code ./streamform --help} has built
   * Streamform:
   *
   * <pre>
   * java -cp "pipelines/target/streamform-pipelines-0.1.0-SNAPSHOT.jar:$(cat \
   *     pipelines/target/runtime-classpath.txt)" dev.streamform.pipelines.examples.HourlyRevenue
   * </pre>
   */
  public static void main(String[] args) {
    Pipeline p = Pipeline.create(PipelineOptionsFactory.fromArgs(args).create());
    WindowedResult hourly =
        p.apply("Payments", Create.of(samplePayments()).withCoder(SourceRecordCoder.of(PAYMENTS)))
            .apply("HourlyRevenue", readingPartitions(0).withContiguousOffsets());
    PCollection<String> records =
        hourly
            .revisions()
            .apply("Revisions", MapElements.into(strings()).via(HourlyRevenue::describe));
    PCollection<String> refused =
        hourly.tooLate().apply("TooLate", MapElements.into(strings()).via(HourlyRevenue::describe));
    PCollectionList.of(records)
        .and(refused)
        .apply("Lines", Flatten.pCollections())
        .apply("Print", ParDo.of(new Print()));
    p.run().waitUntilFinish();
  }

  /**
   * The sample: two merchants on partition 0, in the order they arrive. The watermark trails the
   * latest {@code paid_at} by 5 minutes; the comments give it after each payment.
   */
  public static List<SourceRecord> samplePayments() {
    return List.of(
        payment(0, 7, "10.00", "2026-08-30T10:00:00Z"), // W 09:55
        payment(1, 7, "20.00", "2026-08-30T10:30:00Z"), // W 10:25
        payment(2, 8, "5.00", "2026-08-30T10:45:00Z"), //  W 10:40
        payment(3, 7, "7.00", "2026-08-30T11:10:00Z"), //  W 11:05: hour 10:00 closes, revision 1
        payment(4, 7, "-4.00", "2026-08-30T10:50:00Z"), // refund within 24h: hour 10:00 revision 2
        payment(5, 7, "1.00", "2026-08-31T11:10:00Z"), //  W 08-31 11:05: hour 08-30 10:00 is final
        payment(6, 7, "-1.00", "2026-08-30T10:20:00Z")); // refund after 24h: too late
  }

  private static SourceRecord payment(long offset, long merchant, String amount, String paidAt) {
    Row row = Row.withSchema(PAYMENTS).addValues(merchant, new BigDecimal(amount), paidAt).build();
    return SourceRecord.of(0, offset, READ_AT, row);
  }

  // when a sample payment was read: informational only, event time comes from paid_at
  private static final Instant READ_AT = new Instant(0);

  private static String instant(Instant t) {
    return Times.toJava(t).toString();
  }

  private static final class FailOnBadRecord extends DoFn<BadRecord, Void> {
    @ProcessElement
    public void fail(@Element BadRecord bad) {
      throw new IllegalArgumentException(
          "a payment without a usable paid_at (withBadRecordErrorHandler keeps such payments): "
              + bad.getFailure().getDescription());
    }
  }

  private static final class Print extends DoFn<String, Void> {
    @ProcessElement
    public void print(@Element String line) {
      System.out.println(line);
    }
  }
}
