package dev.streamform.sink.effects;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Moves a model's effects out of the ledger to their providers (docs/semantics.md §10), one atomic phase
 * per step, each a compare-and-set on the effect's state, foreign I/O only between them:
 *
 * <ol>
 *   <li><b>expire</b>: an effect {@code DISPATCHING} for longer than the lease belongs to a
 *       dispatcher that died after claiming it: {@code UNKNOWN} (it may have been delivered);
 *   <li><b>resolve</b>: an {@code UNKNOWN} effect is asked about — only when its provider answers
 *       receipt queries: found is {@code DONE} with the receipt; never applied and the provider
 *       dedupes by key: claimed again ({@code UNKNOWN -> DISPATCHING}) and delivered under the same
 *       key; otherwise it stays {@code UNKNOWN} for a person. Never a blind retry;
 *   <li><b>claim</b>: {@code PREPARED} effects are locked ({@code FOR UPDATE SKIP LOCKED}: several
 *       dispatchers take disjoint sets), each confirmed against the canonical alias and its window's
 *       canonical revision, and moved to {@code DISPATCHING} in one transaction, before any I/O;
 *   <li><b>deliver</b>: the provider receives the effect key as its idempotency key; applied is
 *       {@code DONE} with the receipt, a refused connection {@code PREPARED} again (nothing was
 *       sent), anything else {@code UNKNOWN}.
 * </ol>
 *
 * A {@link Hooks} lets a test stop the dispatcher dead between the phases, as a kill would.
 */
public final class Dispatcher {
  private final DataSource dataSource;
  private final String name;
  private final String model;
  private final Map<String, EffectProvider> providers;
  private final Duration lease;
  private final Hooks hooks;

  /** Called between the phases; a test throws from one to simulate a dispatcher killed there. */
  public interface Hooks {
    /** The claim's transaction is about to commit (the effects are still PREPARED in the database). */
    default void beforeClaimCommit(List<String> effectKeys) {}

    /** The provider has answered (or not); the outcome is not yet written. */
    default void afterDelivery(String effectKey, EffectProvider.Delivery delivery) {}
  }

  /** What one {@link #runOnce} did. */
  public record Report(
      int expired, int resolvedDone, int redispatched, int stillUnknown, int claimed, int waiting,
      int done, int unknown, int notSent) {
    public String describe() {
      return claimed + " claimed, " + done + " done, " + unknown + " unknown, " + notSent
          + " not sent (prepared again), " + waiting + " waiting for their canonical revision; "
          + expired + " expired dispatches, " + resolvedDone + " resolved by receipt, " + redispatched
          + " delivered again after a receipt query said never applied, " + stillUnknown + " still unknown";
    }
  }

  /**
   * A dispatcher named {@code name} (recorded on the effects it claims) for {@code model}'s effects,
   * with a provider per effect type. {@code lease} must exceed the providers' timeouts: an effect
   * dispatching for longer is taken for abandoned.
   */
  public Dispatcher(DataSource dataSource, String name, String model, Map<String, EffectProvider> providers,
      Duration lease, Hooks hooks) {
    this.dataSource = dataSource;
    this.name = name;
    this.model = model;
    this.providers = Map.copyOf(providers);
    this.lease = lease;
    this.hooks = hooks;
  }

  private record Claimed(String key, String type, String payload) {}

  /** One pass: expire, resolve, claim up to {@code limit} PREPARED effects and deliver them. */
  public Report runOnce(int limit) throws SQLException {
    int expired = expire();
    int[] resolution = new int[3];
    List<Claimed> again = resolve(resolution);
    int[] waiting = new int[1];
    List<Claimed> claimed = claim(limit, waiting);
    int done = 0;
    int unknown = 0;
    int notSent = 0;
    List<Claimed> all = new ArrayList<>(again);
    all.addAll(claimed);
    for (Claimed c : all) {
      EffectProvider provider = providers.get(c.type());
      EffectProvider.Delivery d = provider.deliver(c.key(), c.payload());
      hooks.afterDelivery(c.key(), d);
      if (d instanceof EffectProvider.Applied a) {
        move(c.key(), "DISPATCHING", "DONE", a.receipt(), null, "applied");
        done++;
      } else if (d instanceof EffectProvider.NotSent n) {
        move(c.key(), "DISPATCHING", "PREPARED", null, n.reason(), "nothing sent: " + n.reason());
        notSent++;
      } else {
        String reason = ((EffectProvider.Unknown) d).reason();
        move(c.key(), "DISPATCHING", "UNKNOWN", null, reason, "outcome not known: " + reason);
        unknown++;
      }
    }
    return new Report(expired, resolution[0], resolution[1], resolution[2], claimed.size(), waiting[0], done,
        unknown, notSent);
  }

  private int expire() throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      List<String> keys = new ArrayList<>();
      try (PreparedStatement s =
          c.prepareStatement(
              "UPDATE streamform.effect SET state = 'UNKNOWN', updated_at = now(),"
                  + " last_error = 'dispatcher ' || coalesce(dispatcher, '?') || ' held it past its lease'"
                  + " WHERE model = ? AND state = 'DISPATCHING' AND dispatched_at < now() - ?::interval"
                  + " RETURNING effect_key")) {
        s.setString(1, model);
        s.setString(2, lease.toMillis() + " milliseconds");
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            keys.add(rs.getString(1));
          }
        }
      }
      for (String k : keys) {
        transition(c, k, "DISPATCHING", "UNKNOWN", "lease of " + lease.toMillis() + " ms expired");
      }
      c.commit();
      return keys.size();
    }
  }

  private List<Claimed> resolve(int[] counts) throws SQLException {
    List<Claimed> unknown = new ArrayList<>();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT effect_key, effect_type, payload::text FROM streamform.effect"
                  + " WHERE model = ? AND state = 'UNKNOWN' ORDER BY updated_at")) {
        s.setString(1, model);
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            unknown.add(new Claimed(rs.getString(1), rs.getString(2), rs.getString(3)));
          }
        }
      }
      c.commit();
    }
    List<Claimed> again = new ArrayList<>();
    for (Claimed u : unknown) {
      EffectProvider provider = providers.get(u.type());
      if (provider == null || !provider.receiptQueries()) {
        counts[2]++;
        continue;
      }
      EffectProvider.Lookup l = provider.lookup(u.key());
      if (l instanceof EffectProvider.Found f) {
        if (move(u.key(), "UNKNOWN", "DONE", f.receipt(), null, "receipt query: applied")) {
          counts[0]++;
        }
      } else if (l instanceof EffectProvider.NotFound && provider.idempotencyKeys()) {
        if (move(u.key(), "UNKNOWN", "DISPATCHING", null, null,
            "receipt query: never applied; delivered again under the same idempotency key")) {
          counts[1]++;
          again.add(u);
        }
      } else {
        counts[2]++;
      }
    }
    return again;
  }

  private List<Claimed> claim(int limit, int[] waiting) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        List<Claimed> claimed = new ArrayList<>();
        try (PreparedStatement s =
            c.prepareStatement(
                "SELECT e.effect_key, e.effect_type, e.payload::text,"
                    + " (a.generation = e.generation AND p.revision = e.revision) AS confirmed"
                    + " FROM streamform.effect e"
                    + " LEFT JOIN streamform.canonical_alias a ON a.model = e.model"
                    + " LEFT JOIN streamform.projection p"
                    + "   ON p.logical_window_id = e.logical_window_id AND p.generation = a.generation"
                    + " WHERE e.model = ? AND e.state = 'PREPARED'"
                    + " ORDER BY e.prepared_at, e.effect_key LIMIT ? FOR UPDATE OF e SKIP LOCKED")) {
          s.setString(1, model);
          s.setInt(2, limit);
          try (ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
              if (rs.getBoolean(4) && providers.containsKey(rs.getString(2))) {
                claimed.add(new Claimed(rs.getString(1), rs.getString(2), rs.getString(3)));
              } else {
                waiting[0]++;
              }
            }
          }
        }
        try (PreparedStatement s =
            c.prepareStatement(
                "UPDATE streamform.effect SET state = 'DISPATCHING', attempts = attempts + 1, dispatcher = ?,"
                    + " dispatched_at = now(), updated_at = now() WHERE effect_key = ? AND state = 'PREPARED'")) {
          for (Claimed k : claimed) {
            s.setString(1, name);
            s.setString(2, k.key());
            if (s.executeUpdate() != 1) {
              throw new SQLException("effect " + k.key() + " moved under its row lock");
            }
            transition(c, k.key(), "PREPARED", "DISPATCHING", "claimed by " + name);
          }
        }
        hooks.beforeClaimCommit(claimed.stream().map(Claimed::key).toList());
        c.commit();
        return claimed;
      } catch (SQLException | RuntimeException | Error e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** Compare-and-set of one effect's state; false when another dispatcher moved it first. */
  private boolean move(String key, String from, String to, @Nullable String receipt, @Nullable String error,
      String note) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      int n;
      try (PreparedStatement s =
          c.prepareStatement(
              "UPDATE streamform.effect SET state = ?, receipt = coalesce(?, receipt), last_error = ?,"
                  + " updated_at = now(),"
                  + " attempts = attempts + CASE WHEN ? = 'DISPATCHING' THEN 1 ELSE 0 END,"
                  + " dispatcher = CASE WHEN ? = 'DISPATCHING' THEN ? ELSE dispatcher END,"
                  + " dispatched_at = CASE WHEN ? = 'DISPATCHING' THEN now() ELSE dispatched_at END,"
                  + " resolved_at = CASE WHEN ? IN ('DONE', 'UNKNOWN') THEN now() ELSE resolved_at END"
                  + " WHERE effect_key = ? AND state = ?")) {
        s.setString(1, to);
        s.setString(2, receipt);
        s.setString(3, error);
        s.setString(4, to);
        s.setString(5, to);
        s.setString(6, name);
        s.setString(7, to);
        s.setString(8, to);
        s.setString(9, key);
        s.setString(10, from);
        n = s.executeUpdate();
      }
      if (n == 1) {
        transition(c, key, from, to, note);
      }
      c.commit();
      return n == 1;
    }
  }

  private static void transition(Connection c, String key, String from, String to, String note)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect_transition (effect_key, from_state, to_state, note) VALUES (?, ?, ?, ?)")) {
      s.setString(1, key);
      s.setString(2, from);
      s.setString(3, to);
      s.setString(4, note);
      s.executeUpdate();
    }
  }
}
