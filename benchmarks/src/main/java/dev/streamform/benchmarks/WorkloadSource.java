package dev.streamform.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaRecordCoder;
import org.apache.beam.sdk.io.kafka.KafkaTimestampType;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The Beam pipelines' source: the {@link Workload}'s partitions as an {@link UnboundedSource} with
 * one split per partition, each read in offset order (as KafkaIO reads a partition) as the records
 * KafkaIO reads — {@code KafkaRecord<byte[], byte[]>} with topic, partition, offset, the customer
 * id as key and the event's JSON as value (issue 31; the pipelines decode them with {@code
 * KafkaRecordDecoding}, as {@code run} does, see ADR 0076) — each reporting a watermark of its own
 * — the largest event time it has read minus the workload's watermark delay (5m), {@code
 * BoundedOutOfOrderness} the way a Kafka timestamp policy does it — and the end of time once its
 * partition is read, which ends the run.
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
final class WorkloadSource
    extends UnboundedSource<KafkaRecord<byte[], byte[]>, WorkloadSource.Mark> {
  /** The topic the records name. */
  static final String TOPIC = "orders";

  /** The coder of what KafkaIO reads. */
  static final KafkaRecordCoder<byte[], byte[]> CODER =
      KafkaRecordCoder.of(
          NullableCoder.of(ByteArrayCoder.of()), NullableCoder.of(ByteArrayCoder.of()));

  /** Records read by every reader of this JVM since the last reset. */
  static final AtomicLong READ = new AtomicLong();

  /** Records read per partition (the first 64) since the last reset of {@link #READ}. */
  static final java.util.concurrent.atomic.AtomicLongArray READ_BY_PARTITION =
      new java.util.concurrent.atomic.AtomicLongArray(64);

  private final int events;
  private final int partitions;
  private final long seed;

  /** The partition this split reads, or -1 for the whole source before it is split. */
  private final int partition;

  WorkloadSource(Workload w) {
    this(w.events, w.partitions, w.seed, -1);
  }

  private WorkloadSource(int events, int partitions, long seed, int partition) {
    this.events = events;
    this.partitions = partitions;
    this.seed = seed;
    this.partition = partition;
  }

  @Override
  public List<WorkloadSource> split(int desiredNumSplits, PipelineOptions options) {
    if (partition >= 0) {
      return List.of(this);
    }
    List<WorkloadSource> splits = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      splits.add(new WorkloadSource(events, partitions, seed, p));
    }
    return splits;
  }

  @Override
  public UnboundedReader<KafkaRecord<byte[], byte[]>> createReader(
      PipelineOptions options, @Nullable Mark mark) {
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
  public Coder<KafkaRecord<byte[], byte[]>> getOutputCoder() {
    return CODER;
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

  private static final class Reader extends UnboundedReader<KafkaRecord<byte[], byte[]>> {
    private final WorkloadSource source;
    private final Workload w;
    private final int[] indexes;
    private long next;
    private long maxEventTime;
    private @Nullable KafkaRecord<byte[], byte[]> current;
    private long currentTime;

    Reader(WorkloadSource source, Mark mark) {
      this.source = source;
      this.w = Workload.of(source.events, source.partitions, source.seed);
      this.indexes = w.byPartition[source.partition];
      this.next = mark.next;
      this.maxEventTime = mark.maxEventTime;
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
      currentTime = w.eventTime[i];
      current = record(w, i, System.currentTimeMillis());
      maxEventTime = Math.max(maxEventTime, currentTime);
      READ.incrementAndGet();
      if (source.partition < READ_BY_PARTITION.length()) {
        READ_BY_PARTITION.incrementAndGet(source.partition);
      }
      return true;
    }

    @Override
    public KafkaRecord<byte[], byte[]> getCurrent() {
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

  /** Event {@code i} of {@code w} as KafkaIO reads it: appended at {@code appendMillis}. */
  static KafkaRecord<byte[], byte[]> record(Workload w, int i, long appendMillis) {
    return new KafkaRecord<>(
        TOPIC,
        w.partition[i],
        w.offset[i],
        appendMillis,
        KafkaTimestampType.CREATE_TIME,
        new RecordHeaders(),
        KV.of(w.key(i), w.json(i)));
  }
}
