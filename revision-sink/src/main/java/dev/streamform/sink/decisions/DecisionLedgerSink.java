package dev.streamform.sink.decisions;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.auto.value.AutoValue;
import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.sink.DatabaseRetry;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerSchema;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.decisions.Decision;
import dev.streamform.transforms.decisions.UnscoredLateEvent;
import java.io.Serializable;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PDone;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.ReadableInstant;

/**
 * Writes a scoring model's decisions to the decision ledger in PostgreSQL (docs/semantics.md §11;
 * table {@code streamform.decision}, migrated by {@link LedgerSchema}): one row per {@code
 * decision_id}, append-only. Each row is inserted with {@code ON CONFLICT (decision_id) DO
 * NOTHING}, so a replay — a restored checkpoint, a bundle retried, the job run again from the
 * topic's start — writes nothing new; a revision is a row of its own that names the decision it
 * supersedes. {@link #reconcileQueue()} writes late events routed {@code reconciled} to {@code
 * streamform.decision_reconcile}, one row per event and set of decisions it affects (ADR 0196).
 *
 * <pre>{@code
 * DecisionLedgerSink ledger = DecisionLedgerSink.to(JdbcTarget.of(url).withUser("postgres"));
 * scored.decisions().apply(ledger);
 * scored.reconciliations().apply(ledger.reconcileQueue());
 * }</pre>
 *
 * <p>Rows are buffered per bundle and inserted in batches, one transaction each, at the latest when
 * the bundle finishes; a database that is unavailable (a restart, an outage) is retried as the
 * revision sink retries it ({@link DatabaseRetry}) for {@link #retryTimeout()} after it became
 * unavailable, then the run fails naming the database. The connections come from one HikariCP pool
 * per target and worker class loader, whose first use checks the schema as the revision sink does
 * ({@link LedgerSchema#check}) and migrates it.
 */
@AutoValue
public abstract class DecisionLedgerSink extends PTransform<PCollection<Decision>, PDone> {
  static final String INSERT_DECISION =
      "INSERT INTO streamform.decision (decision_id, model, event_id, event_partition,"
          + " event_offset, occurred_at, arrived_at, arrival_watermark, scored_at, contract,"
          + " state_cutoff, state_revision, features, score, model_digest, preprocessing_digest,"
          + " policy_generation, revision, supersedes, revised_by, key_values, record) VALUES (?,"
          + " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb)"
          + " ON CONFLICT (decision_id) DO NOTHING";

  /**
   * A decision refused because the ledger holds its {@code decision_id} with another outcome:
   * recorded once per outcome, counted every time it is offered (ADR 0209).
   */
  static final String INSERT_CONFLICT =
      "INSERT INTO streamform.decision_conflict (decision_id, model, policy_generation,"
          + " event_partition, event_offset, refused_digest, features, score) VALUES (?, ?, ?, ?,"
          + " ?, ?, ?::jsonb, ?) ON CONFLICT (decision_id, refused_digest) DO UPDATE SET refusals"
          + " = streamform.decision_conflict.refusals + 1, last_refused_at = now()";

  static final String STORED_OUTCOMES =
      "SELECT decision_id, features::text, score FROM streamform.decision WHERE decision_id ="
          + " ANY(?)";

  static final String INSERT_RECONCILE =
      "INSERT INTO streamform.decision_reconcile (model, event_id, event_partition, event_offset,"
          + " occurred_at, arrival_watermark, updated_state, affected_decisions, key_values,"
          + " record, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?)"
          + " ON CONFLICT (model, event_partition, event_offset, affected_digest) DO NOTHING";

  public abstract JdbcTarget target();

  public abstract int batchSize();

  /**
   * How long after the database became unavailable a write keeps retrying ({@link DatabaseRetry}).
   */
  public abstract Duration retryTimeout();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setTarget(JdbcTarget target);

    abstract Builder setBatchSize(int size);

    abstract Builder setRetryTimeout(Duration timeout);

    abstract DecisionLedgerSink build();
  }

  /**
   * A ledger at {@code target}, written in batches of up to 500 rows, an unavailable database
   * retried for 5 minutes (as the revision sink's).
   */
  public static DecisionLedgerSink to(JdbcTarget target) {
    checkArgument(target != null, "DecisionLedgerSink.to: no JdbcTarget");
    return new AutoValue_DecisionLedgerSink.Builder()
        .setTarget(target)
        .setBatchSize(500)
        .setRetryTimeout(Duration.ofMinutes(5))
        .build();
  }

  /**
   * How long after the database became unavailable (a restart, an outage) a write keeps retrying
   * before the run fails ({@link DatabaseRetry}, the revision sink's retry).
   */
  public DecisionLedgerSink withRetryTimeout(Duration timeout) {
    checkArgument(
        timeout != null && !timeout.isNegative(),
        "DecisionLedgerSink.withRetryTimeout: must be 0 or more, got %s",
        timeout);
    return toBuilder().setRetryTimeout(timeout).build();
  }

  /** At most {@code size} rows per transaction. */
  public DecisionLedgerSink withBatchSize(int size) {
    checkArgument(size > 0, "DecisionLedgerSink.withBatchSize: must be positive, got %s", size);
    return toBuilder().setBatchSize(size).build();
  }

  @Override
  public PDone expand(PCollection<Decision> decisions) {
    decisions.apply(
        "Insert decisions",
        ParDo.of(
            new InsertFn<Decision>(
                target(),
                batchSize(),
                retryTimeout(),
                INSERT_DECISION,
                DecisionLedgerSink::setDecision,
                DECISIONS_WRITTEN,
                DecisionLedgerSink::conflicts)));
    return PDone.in(decisions.getPipeline());
  }

  /** The reconcile queue's writer: late events routed {@code reconciled}, one row per event. */
  public PTransform<PCollection<UnscoredLateEvent>, PDone> reconcileQueue() {
    JdbcTarget target = target();
    int batch = batchSize();
    Duration retry = retryTimeout();
    return new PTransform<>("Reconcile queue") {
      @Override
      public PDone expand(PCollection<UnscoredLateEvent> late) {
        late.apply(
            "Insert reconcile rows",
            ParDo.of(
                new InsertFn<UnscoredLateEvent>(
                    target,
                    batch,
                    retry,
                    INSERT_RECONCILE,
                    DecisionLedgerSink::setReconcile,
                    RECONCILE_WRITTEN,
                    null)));
        return PDone.in(late.getPipeline());
      }
    };
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("database", target().describe()).withLabel("Database"))
        .add(DisplayData.item("batchSize", batchSize()).withLabel("Batch size"))
        .add(
            DisplayData.item("retryTimeout", retryTimeout().toSeconds() + "s")
                .withLabel("Retry timeout"));
  }

  static void setDecision(Decision d, PreparedStatement s) throws SQLException {
    s.setString(1, d.decisionId());
    s.setString(2, d.model());
    s.setString(3, d.eventId());
    s.setInt(4, d.partition());
    s.setLong(5, d.offset());
    s.setObject(6, timestamp(d.occurredAt()));
    s.setObject(7, timestamp(d.arrivedAt()));
    s.setObject(8, timestamp(d.arrivalWatermark()));
    s.setObject(9, timestamp(d.scoredAt()));
    s.setString(10, d.contract().declared());
    s.setObject(11, timestamp(d.stateCutoff()));
    s.setLong(12, d.stateRevision());
    ObjectNode features = JsonNodeFactory.instance.objectNode();
    d.features().forEach(features::put);
    s.setString(13, features.toString());
    s.setDouble(14, d.score());
    s.setString(15, d.modelDigest());
    s.setString(16, d.preprocessingDigest());
    s.setInt(17, d.policyGeneration());
    s.setInt(18, d.revision());
    setText(s, 19, d.supersedes());
    setText(s, 20, d.revisedBy());
    s.setString(21, json(d.key()).toString());
    s.setString(22, json(d.event()).toString());
  }

  static void setReconcile(UnscoredLateEvent e, PreparedStatement s) throws SQLException {
    s.setString(1, e.model());
    s.setString(2, e.eventId());
    s.setInt(3, e.partition());
    s.setLong(4, e.offset());
    s.setObject(5, timestamp(e.occurredAt()));
    s.setObject(6, timestamp(e.arrivalWatermark()));
    s.setBoolean(7, e.updatedState());
    ArrayNode affected = JsonNodeFactory.instance.arrayNode();
    e.affectedDecisions().forEach(affected::add);
    s.setString(8, affected.toString());
    s.setString(9, json(e.key()).toString());
    s.setString(10, json(e.event()).toString());
    setText(s, 11, e.reason());
  }

  private static void setText(PreparedStatement s, int i, @Nullable String text)
      throws SQLException {
    if (text == null) {
      s.setNull(i, Types.VARCHAR);
    } else {
      s.setString(i, text);
    }
  }

  /**
   * The instant as PostgreSQL's {@code timestamptz} holds it: proleptic Gregorian, as Joda-Time and
   * {@code java.time} count, where {@code java.sql.Timestamp} would move an instant before 1582 by
   * days to the Julian calendar.
   */
  private static @Nullable OffsetDateTime timestamp(@Nullable ReadableInstant t) {
    return t == null
        ? null
        : java.time.Instant.ofEpochMilli(t.getMillis()).atOffset(ZoneOffset.UTC);
  }

  /** A record as a JSON object: decimals exact, timestamps RFC 3339 in UTC. */
  static ObjectNode json(Row row) {
    ObjectNode o = JsonNodeFactory.withExactBigDecimals(true).objectNode();
    for (org.apache.beam.sdk.schemas.Schema.Field f : row.getSchema().getFields()) {
      Object v = row.getValue(f.getName());
      if (v == null) {
        o.putNull(f.getName());
      } else if (v instanceof BigDecimal) {
        o.put(f.getName(), (BigDecimal) v);
      } else if (v instanceof Long || v instanceof Integer || v instanceof Short) {
        o.put(f.getName(), ((Number) v).longValue());
      } else if (v instanceof Double || v instanceof Float) {
        o.put(f.getName(), ((Number) v).doubleValue());
      } else if (v instanceof Boolean) {
        o.put(f.getName(), (Boolean) v);
      } else if (v instanceof ReadableInstant) {
        o.put(f.getName(), Times.toJava(((ReadableInstant) v)).toString());
      } else {
        o.put(f.getName(), v.toString());
      }
    }
    return o;
  }

  /**
   * Of {@code offered}, the decisions the ledger did not insert, those whose {@code decision_id} it
   * holds with other features or another score, each recorded in {@code decision_conflict} on
   * {@code c} (in the insert's transaction); returns how many. A replay's decisions are the ones
   * the ledger holds and count nothing.
   */
  static int conflicts(Connection c, List<Decision> offered) throws SQLException {
    Map<String, List<Decision>> byId = new LinkedHashMap<>();
    offered.forEach(d -> byId.computeIfAbsent(d.decisionId(), id -> new ArrayList<>()).add(d));
    List<Decision> refused = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement(STORED_OUTCOMES)) {
      s.setArray(1, c.createArrayOf("text", byId.keySet().toArray()));
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          Map<String, Double> features = DecisionLedger.features(r.getString(2));
          double score = r.getDouble(3);
          for (Decision d : byId.getOrDefault(r.getString(1), List.of())) {
            if (Double.compare(score, d.score()) != 0 || !sameFeatures(features, d)) {
              refused.add(d);
            }
          }
        }
      }
    }
    if (refused.isEmpty()) {
      return 0;
    }
    try (PreparedStatement s = c.prepareStatement(INSERT_CONFLICT)) {
      for (Decision d : refused) {
        ObjectNode features = JsonNodeFactory.instance.objectNode();
        new TreeMap<>(d.features()).forEach(features::put);
        s.setString(1, d.decisionId());
        s.setString(2, d.model());
        s.setInt(3, d.policyGeneration());
        s.setInt(4, d.partition());
        s.setLong(5, d.offset());
        s.setString(
            6, RevisionIdentity.hash(List.of(features.toString(), Double.toString(d.score()))));
        s.setString(7, features.toString());
        s.setDouble(8, d.score());
        s.addBatch();
      }
      s.executeBatch();
    }
    return refused.size();
  }

  private static boolean sameFeatures(Map<String, Double> stored, Decision d) {
    if (!stored.keySet().equals(d.features().keySet())) {
      return false;
    }
    for (Map.Entry<String, Double> f : d.features().entrySet()) {
      Double held = stored.get(f.getKey());
      if (held == null || Double.compare(held, f.getValue()) != 0) {
        return false;
      }
    }
    return true;
  }

  /** What a checker does: the rows of a batch the insert did not write, on its transaction. */
  interface Checker<T> extends Serializable {
    int check(Connection c, List<T> notInserted) throws SQLException;
  }

  /**
   * Decisions refused because the ledger holds their {@code decision_id} with another outcome
   * ({@code decision_conflict}, ADR 0209), each time offered.
   */
  public static final String DECISION_CONFLICTS = "decision_ledger_conflicts";

  /** What a setter does: one row's parameters. */
  interface Setter<T> extends Serializable {
    void set(T row, PreparedStatement s) throws SQLException;
  }

  /**
   * Decision rows inserted (new, not replayed), metric of the namespace {@value
   * StreamformMetrics#NAMESPACE}.
   */
  public static final String DECISIONS_WRITTEN = "decision_ledger_rows_written";

  /** Reconcile-queue rows inserted (new, not replayed). */
  public static final String RECONCILE_WRITTEN = "decision_reconcile_rows_written";

  /**
   * Buffers a bundle's rows and inserts them in batches, one transaction each, at the latest when
   * the bundle finishes; an unavailable database is retried by {@link DatabaseRetry} (the revision
   * sink's retry), on a connection taken afresh for each attempt. The inserts are {@code ON
   * CONFLICT DO NOTHING}, so a batch retried after a commit it never heard of writes nothing twice.
   */
  private static final class InsertFn<T> extends DoFn<T, Void> {
    private static final Map<JdbcTarget, HikariDataSource> POOLS = new ConcurrentHashMap<>();

    private final JdbcTarget target;
    private final int batchSize;
    private final Duration retryTimeout;
    private final String sql;
    private final Setter<T> setter;
    private final Counter written;
    private final @Nullable Checker<T> checker;
    private final Counter conflicted;

    private transient HikariDataSource pool;
    private transient DatabaseRetry retry;
    private transient List<T> buffer;

    InsertFn(
        JdbcTarget target,
        int batchSize,
        Duration retryTimeout,
        String sql,
        Setter<T> setter,
        String metric,
        @Nullable Checker<T> checker) {
      this.target = target;
      this.batchSize = batchSize;
      this.retryTimeout = retryTimeout;
      this.sql = sql;
      this.setter = setter;
      this.written = StreamformMetrics.counter(metric);
      this.checker = checker;
      this.conflicted = StreamformMetrics.counter(DECISION_CONFLICTS);
    }

    @Setup
    public void setup() {
      // one pool per target in each class loader (a Flink job's own)
      pool = POOLS.computeIfAbsent(target, t -> t.openPool("streamform-decision-ledger", 4, 2_000));
      retry = new DatabaseRetry(target.describe(), retryTimeout);
    }

    @StartBundle
    public void startBundle() {
      buffer = new ArrayList<>();
    }

    @ProcessElement
    public void process(@Element T row) throws SQLException {
      buffer.add(row);
      if (buffer.size() >= batchSize) {
        flush();
      }
    }

    @FinishBundle
    public void finishBundle() throws SQLException {
      flush();
    }

    private void flush() throws SQLException {
      if (buffer.isEmpty()) {
        return;
      }
      List<T> rows = List.copyOf(buffer);
      int[] inserted =
          retry
              .call(
                  "inserting " + rows.size() + " rows",
                  () -> {
                    migrate(pool, retry.database());
                    return insert(rows);
                  })
              .value();
      written.inc(inserted[0]);
      if (inserted[1] > 0) {
        conflicted.inc(inserted[1]);
      }
      buffer.clear();
    }

    /** The rows inserted, and of the others the conflicts the checker found. */
    private int[] insert(List<T> rows) throws SQLException {
      try (Connection c = pool.getConnection()) {
        c.setAutoCommit(false);
        try (PreparedStatement s = c.prepareStatement(sql)) {
          for (T row : rows) {
            setter.set(row, s);
            s.addBatch();
          }
          int n = 0;
          List<T> notInserted = new ArrayList<>();
          int[] counts = s.executeBatch();
          for (int i = 0; i < counts.length; i++) {
            n += Math.max(counts[i], 0);
            if (counts[i] != 1) {
              notInserted.add(rows.get(i));
            }
          }
          int conflicts =
              checker == null || notInserted.isEmpty() ? 0 : checker.check(c, notInserted);
          c.commit();
          return new int[] {n, conflicts};
        } catch (SQLException | RuntimeException e) {
          try {
            c.rollback();
          } catch (SQLException rollback) {
            e.addSuppressed(rollback);
          }
          throw e;
        }
      }
    }

    /**
     * The schema checked and migrated once per pool, before its first write: a job submitted
     * without the command line has had no check (ADR 0136).
     */
    private static final Map<DataSource, Boolean> MIGRATED = new ConcurrentHashMap<>();

    private static void migrate(DataSource pool, String database) throws SQLException {
      if (!MIGRATED.containsKey(pool)) {
        synchronized (MIGRATED) {
          if (!MIGRATED.containsKey(pool)) {
            LedgerSchema.migrate(pool, database);
            MIGRATED.put(pool, true);
          }
        }
      }
    }
  }
}
