package dev.streamform.benchmarks;

import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The Beam pipelines' source: the {@link Workload}'s partitions as an {@link UnboundedSource} with
 * one split per partition, each read in offset order (as KafkaIO reads a partition), each reporting
 * a watermark of its own — the largest event time it has read minus the workload's watermark delay
 * (5m), {@code BoundedOutOfOrderness} the way a Kafka timestamp policy does it — and the end of
 * time once its partition is read, which ends the run.
 *
 * <p>With this watermark the runner's watermark moves during the run, so event-time timers
 * (retention, the hand-over's releases, windows' ends) fire as the data goes, not all at the end;
 * and live state can be sampled from the pipeline's metrics while it runs ({@link LiveMetrics}).
 * Records carry their event time as element timestamp; a record behind its split's watermark is
 * late for Beam's own windowing, as it would be behind a Kafka source's.
 *
 * <p>{@link #READ} counts the records read in this JVM (the benchmark resets it per run), so a
 * sampler can say how many events the state it sees came from.
 */
final class WorkloadSource extends UnboundedSource<SourceRecord, WorkloadSource.Mark> {
  /** Records read by every reader of this JVM since the last reset. */
  static final AtomicLong READ = new AtomicLong();

  /** Records read per partition (the first 64) since the last reset of {@link #READ}. */
  static final java.util.concurrent.atomic.AtomicLongArray READ_BY_PARTITION =
      new java.util.concurrent.atomic.AtomicLongArray(64);

  private final int events;
  private final int partitions;
  private final long seed;
  private final Schema schema;

  /** The partition this split reads, or -1 for the whole source before it is split. */
  private final int partition;

  WorkloadSource(Workload w, Schema schema) {
    this(w.events, w.partitions, w.seed, schema, -1);
  }

  private WorkloadSource(int events, int partitions, long seed, Schema schema, int partition) {
    this.events = events;
    this.partitions = partitions;
    this.seed = seed;
    this.schema = schema;
    this.partition = partition;
  }

  @Override
  public List<WorkloadSource> split(int desiredNumSplits, PipelineOptions options) {
    if (partition >= 0) {
      return List.of(this);
    }
    List<WorkloadSource> splits = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      splits.add(new WorkloadSource(events, partitions, seed, schema, p));
    }
    return splits;
  }

  @Override
  public UnboundedReader<SourceRecord> createReader(PipelineOptions options, @Nullable Mark mark) {
    if (partition < 0) {
      throw new IllegalStateException(
          "WorkloadSource must be split into partitions before it is read");
    }
    return new Reader(
        this, mark == null ? new Mark(0, BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis()) : mark);
  }

  @Override
  public Coder<Mark> getCheckpointMarkCoder() {
    return MarkCoder.INSTANCE;
  }

  @Override
  public Coder<SourceRecord> getOutputCoder() {
    return SourceRecordCoder.of(schema);
  }

  /** Where a reader stands: the next index into its partition and the largest event time read. */
  static final class Mark implements UnboundedSource.CheckpointMark {
    final long next;
    final long maxEventTime;

    Mark(long next, long maxEventTime) {
      this.next = next;
      this.maxEventTime = maxEventTime;
    }

    @Override
    public void finalizeCheckpoint() {}
  }

  /** Two var-longs. */
  static final class MarkCoder extends AtomicCoder<Mark> {
    static final MarkCoder INSTANCE = new MarkCoder();

    @Override
    public void encode(Mark value, OutputStream out) throws IOException {
      VarLongCoder.of().encode(value.next, out);
      VarLongCoder.of().encode(value.maxEventTime, out);
    }

    @Override
    public Mark decode(InputStream in) throws IOException {
      return new Mark(VarLongCoder.of().decode(in), VarLongCoder.of().decode(in));
    }
  }

  private static final class Reader extends UnboundedReader<SourceRecord> {
    private final WorkloadSource source;
    private final Workload w;
    private final int[] indexes;
    private final Instant ingest = Instant.now();
    private final int customer;
    private final int amount;
    private final int orderedAt;
    private final int orderId;
    private long next;
    private long maxEventTime;
    private @Nullable SourceRecord current;
    private long currentTime;

    Reader(WorkloadSource source, Mark mark) {
      this.source = source;
      this.w = Workload.of(source.events, source.partitions, source.seed);
      this.indexes = w.byPartition[source.partition];
      this.next = mark.next;
      this.maxEventTime = mark.maxEventTime;
      this.customer = source.schema.indexOf("customer_id");
      this.amount = source.schema.indexOf("amount");
      this.orderedAt = source.schema.indexOf("ordered_at");
      this.orderId =
          source.schema.hasField(Workload.ORDER_ID) ? source.schema.indexOf(Workload.ORDER_ID) : -1;
    }

    @Override
    public boolean start() {
      return advance();
    }

    @Override
    public boolean advance() {
      if (next >= indexes.length) {
        current = null;
        return false;
      }
      int i = indexes[(int) next++];
      Object[] values = new Object[source.schema.getFieldCount()];
      if (orderId >= 0) {
        values[orderId] = (long) i;
      }
      values[customer] = w.customerId[i];
      values[amount] = w.amount(i);
      values[orderedAt] = new Instant(w.eventTime[i]);
      current =
          SourceRecord.of(
              source.partition,
              w.offset[i],
              ingest,
              Row.withSchema(source.schema).addValues(values).build());
      currentTime = w.eventTime[i];
      maxEventTime = Math.max(maxEventTime, currentTime);
      READ.incrementAndGet();
      if (source.partition < READ_BY_PARTITION.length()) {
        READ_BY_PARTITION.incrementAndGet(source.partition);
      }
      return true;
    }

    @Override
    public SourceRecord getCurrent() {
      if (current == null) {
        throw new NoSuchElementException();
      }
      return current;
    }

    @Override
    public Instant getCurrentTimestamp() {
      if (current == null) {
        throw new NoSuchElementException();
      }
      return new Instant(currentTime);
    }

    @Override
    public byte[] getCurrentRecordId() {
      return ByteBuffer.allocate(12).putInt(source.partition).putLong(next - 1).array();
    }

    @Override
    public Instant getWatermark() {
      if (next >= indexes.length) {
        return BoundedWindow.TIMESTAMP_MAX_VALUE; // the partition is read: the end of its time
      }
      if (maxEventTime == BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis()) {
        return BoundedWindow.TIMESTAMP_MIN_VALUE;
      }
      return new Instant(maxEventTime - Workload.WATERMARK.toMillis());
    }

    @Override
    public Mark getCheckpointMark() {
      return new Mark(next, maxEventTime);
    }

    @Override
    public WorkloadSource getCurrentSource() {
      return source;
    }

    @Override
    public void close() {}
  }
}
