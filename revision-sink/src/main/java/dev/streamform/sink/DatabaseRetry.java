package dev.streamform.sink;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the sinks ride out a database outage (the revision sink's {@link LedgerWriter} and the
 * decision ledger's writer alike): an attempt that fails for a reason a retry can cure ({@link
 * #retryable}) is tried again with backoff (100 ms doubling to 2 s) until the retry time has passed
 * since the <em>outage</em> began — the first failure of any writer of the same database in this
 * process, not each batch's own first failure — with a last attempt at that deadline. So every
 * writer of a database gives up at the same moment, the retry time after the database became
 * unavailable, and an outage shorter than the retry time is always ridden out.
 *
 * <p>An outage is told to the {@linkplain #listen listeners} (e.g. {@code streamform run}, which
 * prints it on standard error) once when it begins, and once when it ends: the database is back, or
 * a writer gave up. Every failed attempt is also logged (slf4j, WARN).
 */
public final class DatabaseRetry {
  private static final Logger LOG = LoggerFactory.getLogger(DatabaseRetry.class);

  /**
   * What HikariCP's stand-in for a connection it evicted after a fatal error (the server went away)
   * throws, with no SQLState: seen when a restart cuts a schema migration short.
   */
  private static final String HIKARI_CLOSED = "Connection is closed";

  private static final long FIRST_BACKOFF_MILLIS = 100;
  private static final long MAX_BACKOFF_MILLIS = 2_000;

  /** One attempt: a transaction, begun on a connection of its own. */
  @FunctionalInterface
  public interface Attempt<T> {
    T run() throws SQLException;
  }

  /** What an outage's listener is told (each once per outage, from the writer's thread). */
  public interface Listener {
    /**
     * {@code database} failed at {@code since} ({@code why}); writers retry until {@code until}.
     */
    void unavailable(String database, Instant since, Instant until, String why);

    /** {@code database}, unavailable since {@code since}, accepted a write again. */
    void back(String database, Instant since, Duration down);

    /** A writer gave up on {@code database}, unavailable since {@code since}, at its deadline. */
    void gaveUp(String database, Instant since, Duration retriedFor, String why);
  }

  /** The value of a successful attempt and how many attempts failed before it. */
  public record Result<T>(T value, int retries) {}

  /**
   * The database gave no successful answer within the retry time: thrown once the last attempt, at
   * the deadline, failed too (its failure is the cause). Not retryable.
   */
  public static final class GaveUp extends SQLException {
    GaveUp(String message, Throwable cause) {
      super(message, "08006", cause);
    }
  }

  /**
   * How long an outage a writer gave up on stays in force for the other writers of its database: a
   * writer retrying at the same deadline fails its last attempt up to one backoff after the first
   * writer gave up, and must give up too rather than begin a new outage with a retry time of its
   * own.
   */
  private static final long GIVEN_UP_HOLDS_NANOS = 2 * MAX_BACKOFF_MILLIS * 1_000_000;

  /** An outage of one database, shared by its writers in this process. */
  private static final class Outage {
    final Instant since = Instant.now();
    final long sinceNanos = System.nanoTime();
    final AtomicBoolean ended = new AtomicBoolean();
    // when a writer gave up on it (System.nanoTime()), 0 while writers still retry
    volatile long gaveUpNanos;

    boolean over(long nowNanos) {
      long gaveUp = gaveUpNanos;
      return gaveUp != 0 && nowNanos - gaveUp > GIVEN_UP_HOLDS_NANOS;
    }
  }

  private static final Map<String, Outage> OUTAGES = new ConcurrentHashMap<>();
  private static final List<Listener> LISTENERS = new CopyOnWriteArrayList<>();

  private final String database;
  private final Duration retryFor;

  /**
   * Retries for {@code retryFor} after {@code database} (as {@link JdbcTarget#describe} names it:
   * writers with the same name share an outage) became unavailable.
   */
  public DatabaseRetry(String database, Duration retryFor) {
    if (retryFor == null || retryFor.isNegative()) {
      throw new IllegalArgumentException("DatabaseRetry: the retry time must be 0 or more");
    }
    this.database = database;
    this.retryFor = retryFor;
  }

  /** The name of {@code dataSource}'s database: URL (masked) and user for a HikariCP pool. */
  public static String nameOf(DataSource dataSource) {
    if (dataSource instanceof HikariDataSource h && h.getJdbcUrl() != null) {
      return JdbcTarget.masked(h.getJdbcUrl())
          + (h.getUsername() == null ? "" : " as " + h.getUsername());
    }
    return String.valueOf(dataSource);
  }

  /** Adds {@code listener} until the returned handle is closed. */
  public static AutoCloseable listen(Listener listener) {
    LISTENERS.add(listener);
    return () -> LISTENERS.remove(listener);
  }

  public String database() {
    return database;
  }

  public Duration retryFor() {
    return retryFor;
  }

  /**
   * Runs {@code attempt} until it succeeds, fails for a reason a retry cannot cure (thrown as it
   * is), or the database stays unavailable for the retry time ({@link GaveUp}).
   *
   * @param what what the attempt does, for the log ("writing 500 records")
   */
  public <T> Result<T> call(String what, Attempt<T> attempt) throws SQLException {
    Outage[] seen = {null};
    boolean succeeded = false;
    try {
      Result<T> result = attempts(what, attempt, seen);
      succeeded = true;
      return result;
    } finally {
      if (!succeeded && seen[0] != null) {
        leave(seen[0]);
      }
    }
  }

  private <T> Result<T> attempts(String what, Attempt<T> attempt, Outage[] seen)
      throws SQLException {
    long callStart = System.nanoTime();
    long backoffMillis = FIRST_BACKOFF_MILLIS;
    Outage outage = null;
    for (int retries = 0; ; retries++) {
      try {
        T value = attempt.run();
        if (outage != null) {
          back(outage);
        }
        return new Result<>(value, retries);
      } catch (SQLException | RuntimeException e) {
        if (!retryable(e)) {
          throw e;
        }
        long leftNanos;
        if (unavailable(e)) {
          outage = outage(e);
          seen[0] = outage;
          leftNanos = outage.sinceNanos + retryFor.toNanos() - System.nanoTime();
          if (leftNanos <= 0) {
            throw gaveUp(outage, e);
          }
        } else {
          // a lost race, a deadlock, a full lock table: the database answers, this call retries
          leftNanos = callStart + retryFor.toNanos() - System.nanoTime();
          if (leftNanos <= 0) {
            throw e;
          }
        }
        long sleep = Math.min(backoffMillis, Math.max(1, (leftNanos + 999_999) / 1_000_000));
        LOG.warn(
            "streamform sink: {} to {} failed ({}); retrying in {} ms",
            what,
            database,
            e.getMessage(),
            sleep);
        try {
          Thread.sleep(sleep);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
        backoffMillis = Math.min(backoffMillis * 2, MAX_BACKOFF_MILLIS);
      }
    }
  }

  private Outage outage(Throwable e) {
    boolean[] began = {false};
    Outage outage =
        OUTAGES.compute(
            database,
            (k, old) -> {
              if (old != null && !old.over(System.nanoTime())) {
                return old;
              }
              began[0] = true;
              return new Outage();
            });
    if (began[0]) {
      Instant until = outage.since.plus(retryFor);
      LOG.warn(
          "streamform sink: the database {} is unavailable since {} ({}); retrying until {}",
          database,
          outage.since,
          e.getMessage(),
          until);
      for (Listener l : LISTENERS) {
        l.unavailable(database, outage.since, until, firstLine(e));
      }
    }
    return outage;
  }

  /**
   * A call that saw {@code outage} ended without a successful attempt and without giving up: an
   * error no retry cures (a failover's read-only standby, 25006), a lost race past its own retry
   * time, an interrupt. The outage no longer stands for the database: left in place, nothing would
   * end it (only the call that saw it did), and every later failure, hours on, would be measured
   * from its start and give up at once. The next unavailable error of any writer (one still
   * retrying in it too) begins a new outage, with a retry time of its own. An outage a writer gave
   * up on stays for the others at the same deadline ({@link #GIVEN_UP_HOLDS_NANOS}).
   */
  private void leave(Outage outage) {
    if (outage.gaveUpNanos == 0) {
      OUTAGES.remove(database, outage);
    }
  }

  private void back(Outage outage) {
    OUTAGES.remove(database, outage);
    if (outage.ended.compareAndSet(false, true)) {
      Duration down = Duration.between(outage.since, Instant.now());
      LOG.warn("streamform sink: the database {} is back after {}", database, describe(down));
      for (Listener l : LISTENERS) {
        l.back(database, outage.since, down);
      }
    }
  }

  private GaveUp gaveUp(Outage outage, Throwable e) {
    // kept for the writers at the same deadline (GIVEN_UP_HOLDS_NANOS); a later failure begins anew
    if (outage.gaveUpNanos == 0) {
      outage.gaveUpNanos = System.nanoTime();
    }
    String why = firstLine(e);
    if (outage.ended.compareAndSet(false, true)) {
      for (Listener l : LISTENERS) {
        l.gaveUp(database, outage.since, retryFor, why);
      }
    }
    return new GaveUp(
        "gave up after retrying for "
            + describe(retryFor)
            + ": the database "
            + database
            + " has been unavailable since "
            + outage.since.truncatedTo(ChronoUnit.SECONDS)
            + " ("
            + why
            + "); once it is up, run again: what was written stays, and nothing is written twice",
        e);
  }

  /** A duration as an operator reads it: "5 min", "2 s", "1 min 30 s", "250 ms". */
  public static String describe(Duration d) {
    long millis = d.toMillis();
    if (millis < 1_000) {
      return millis + " ms";
    }
    long seconds = (millis + 500) / 1_000;
    long minutes = seconds / 60;
    long rest = seconds % 60;
    if (minutes == 0) {
      return seconds + " s";
    }
    return minutes + " min" + (rest == 0 ? "" : " " + rest + " s");
  }

  private static String firstLine(Throwable e) {
    String m = String.valueOf(e.getMessage());
    // the innermost cause says what happened ("Connection refused"), a wrapper only that it did
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t.getMessage() != null) {
        m = t.getMessage();
      }
    }
    int eol = m.indexOf('\n');
    return (eol < 0 ? m : m.substring(0, eol)).strip();
  }

  /**
   * True for a failure that says the database cannot be reached: a connection refused, lost or not
   * to be had (SQLState class 08), the server shutting down or starting (57P), a pooled connection
   * the pool closed after the server went away.
   */
  static boolean unavailable(Throwable e) {
    for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof java.sql.SQLTransientConnectionException
          || t instanceof SQLRecoverableException
          || t instanceof java.net.ConnectException) {
        return true;
      }
      if (t instanceof SQLException sql) {
        String state = sql.getSQLState();
        if (state == null && HIKARI_CLOSED.equals(sql.getMessage())) {
          return true;
        }
        if (state != null && (state.startsWith("08") || state.startsWith("57P"))) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * True for a failure a retry can cure: the connection was lost or refused, the server is shutting
   * down or starting, a serialization failure or deadlock, a compare-and-set that lost a race, the
   * server's lock table or connection slots exhausted (53200, 53300: other transactions free them),
   * a pooled connection the pool closed after the server went away. Never for {@link GaveUp}.
   */
  public static boolean retryable(Throwable e) {
    if (e instanceof GaveUp) {
      return false;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientException || t instanceof SQLRecoverableException) {
        return true;
      }
      if (t instanceof SQLException) {
        SQLException sql = (SQLException) t;
        String state = sql.getSQLState();
        if (state == null && HIKARI_CLOSED.equals(sql.getMessage())) {
          return true;
        }
        if (state != null
            && (state.startsWith("08")
                || state.startsWith("57P")
                || state.equals("40001")
                || state.equals("40P01")
                || state.equals("53200")
                || state.equals("53300"))) {
          return true;
        }
        SQLException next = sql.getNextException();
        if (next != null && next != t && retryable(next)) {
          return true;
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
