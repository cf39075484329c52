package dev.streamform.sink.effects;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What a person settles by hand ({@code streamform effects settle}, ADR 0140), each recorded in
 * {@code streamform.effect_settlement} with who, when and why, in the transaction of the
 * compare-and-set it records. Nothing here sends anything to a provider.
 *
 * <ul>
 *   <li>{@link #applied}: an {@code UNKNOWN} effect the person found applied becomes {@code DONE}
 *       with the person's receipt, as if a receipt query had answered applied;
 *   <li>{@link #notApplied}: an {@code UNKNOWN} effect the person found never applied becomes
 *       {@code PREPARED} when its provider dedupes by key (delivered again under the same key, the
 *       dispatcher's own rule after a receipt that says never applied), and {@code NOT_APPLIED}
 *       when it does not (never sent again: the contract forbids a retry after dispatch). Made
 *       {@code PREPARED} again, it is evaluated against its window's canonical values in the same
 *       transaction ({@link Reevaluation}): it follows them, or is {@code CANCELLED} when its rule
 *       no longer holds;
 *   <li>{@link #closeCompensation}: a compensation record the person has dealt with is closed.
 * </ul>
 *
 * <p>Each move is {@code UPDATE ... WHERE state = 'UNKNOWN'} (or {@code resolved_at IS NULL}) and
 * its row count decides: a settlement racing a dispatcher's receipt query or a second settlement
 * never both win; the loser is refused and changes nothing.
 */
public final class EffectSettlement {
  private final DataSource dataSource;
  private final Reevaluation reevaluation;

  /** Settlements that leave an effect made PREPARED again as it is (no rules to evaluate). */
  public EffectSettlement(DataSource dataSource) {
    this(dataSource, Reevaluation.NONE);
  }

  /**
   * Settlements that evaluate an effect made PREPARED again by {@code reevaluation}, in the
   * settlement's transaction.
   */
  public EffectSettlement(DataSource dataSource, Reevaluation reevaluation) {
    this.dataSource = dataSource;
    this.reevaluation = reevaluation;
  }

  /**
   * Brings an effect that has just become PREPARED again (nothing of it applied) in line with its
   * window's canonical values now, in the settlement's transaction {@code c}: the re-evaluation a
   * promotion or a rollback makes ({@code Ledger.reevaluation}). Its rule still true: it follows
   * the canonical revision (and generation) and stays PREPARED; false: CANCELLED, as any effect
   * never sent whose rule went false. Without it, an effect whose window moved while it was UNKNOWN
   * would wait for ever for a revision that is no longer canonical.
   */
  @FunctionalInterface
  public interface Reevaluation {
    /** Leaves the effect as it is. */
    Reevaluation NONE = (c, effectKey) -> {};

    void followCanonical(Connection c, String effectKey) throws SQLException;
  }

  /** A settlement refused, with one line saying why (the effect's key and state, or the id). */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /**
   * What a settlement of an effect did: its full key, the move it made, and the generation and
   * revision the effect stands at after it (those the re-evaluation read, when there was one).
   */
  public record Settled(
      String effectKey, String fromState, String toState, int generation, int revision) {}

  /** One recorded settlement, for {@code effects show}. */
  public record Settlement(
      String effectKey,
      @Nullable Long compensationId,
      String outcome,
      @Nullable String toState,
      @Nullable String receipt,
      String actor,
      String reason,
      Instant at) {
    /** {@code 2026-08-30T10:00:00Z by alice: confirmed in the provider's console}. */
    public String describe() {
      return at + " by " + actor + ": " + reason;
    }
  }

  /**
   * UNKNOWN → DONE: the person found the effect applied at the provider; {@code receipt} (or, when
   * null, {@code settled by <by>}) becomes its receipt.
   */
  public Settled applied(
      String model, String keyPrefix, String by, String reason, @Nullable String receipt)
      throws SQLException, Refused {
    String given = receipt == null || receipt.isBlank() ? null : receipt;
    return settle(model, keyPrefix, by, reason, "applied", given);
  }

  /**
   * UNKNOWN → PREPARED (its provider dedupes by key) or NOT_APPLIED (it does not): the person found
   * that the provider never applied the effect.
   */
  public Settled notApplied(String model, String keyPrefix, String by, String reason)
      throws SQLException, Refused {
    return settle(model, keyPrefix, by, reason, "not_applied", null);
  }

  private Settled settle(
      String model,
      String keyPrefix,
      String by,
      String reason,
      String outcome,
      @Nullable String receipt)
      throws SQLException, Refused {
    requireReason(reason);
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        String key = resolve(c, model, keyPrefix);
        String before = state(c, key);
        if (!before.equals("UNKNOWN")) {
          throw new Refused(notUnknown(key, before));
        }
        String provider = provider(c, key);
        boolean dedupes = provider.contains("idempotency: key");
        if (outcome.equals("not_applied")) {
          refuseDeltas(c, key);
        }
        String to = outcome.equals("applied") ? "DONE" : dedupes ? "PREPARED" : "NOT_APPLIED";
        if (to.equals("PREPARED")) {
          // the lock order of the sink and of alias set (the alias, then the effect), since the
          // re-evaluation below reads the alias FOR SHARE: a concurrent alias set waits or is seen
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT 1 FROM streamform.canonical_alias WHERE model = ? FOR SHARE")) {
            s.setString(1, model);
            s.executeQuery().close();
          }
        }
        int moved;
        // compare-and-set on UNKNOWN: a receipt query, a redelivery or another settlement that
        // moved the effect first wins, and this one is refused
        try (PreparedStatement s =
            c.prepareStatement(
                "UPDATE streamform.effect SET state = ?, receipt = ?, last_error = NULL,"
                    + " receipt_queries = 0, receipt_error = NULL, updated_at = now(),"
                    + " resolved_at = CASE WHEN ? = 'PREPARED' THEN resolved_at ELSE now() END,"
                    // PREPARED: due at once, as the settlement says (the next pass delivers
                    // it; a late first request is harmless, the provider dedupes by key)
                    + " next_attempt_at = NULL"
                    + " WHERE effect_key = ? AND state = 'UNKNOWN'")) {
          s.setString(1, to);
          // DONE needs a receipt: the person's, or the settlement itself
          s.setString(
              2, to.equals("DONE") ? (receipt == null ? "settled by " + by : receipt) : null);
          s.setString(3, to);
          s.setString(4, key);
          moved = s.executeUpdate();
        }
        if (moved != 1) {
          c.rollback();
          String now = state(c, key);
          c.commit();
          throw new Refused(notUnknown(key, now));
        }
        String note =
            "settled by "
                + by
                + ": "
                + (outcome.equals("applied")
                    ? "applied at the provider"
                    : dedupes
                        ? "never applied at the provider; delivered again under the same"
                            + " idempotency key"
                        : "never applied at the provider; not sent again (its provider does not"
                            + " dedupe by key)")
                + " ("
                + reason
                + ")";
        try (PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO streamform.effect_transition (effect_key, from_state, to_state, note)"
                    + " VALUES (?, 'UNKNOWN', ?, ?)")) {
          s.setString(1, key);
          s.setString(2, to);
          s.setString(3, note);
          s.executeUpdate();
        }
        if (to.equals("PREPARED")) {
          // its window may have moved while it was UNKNOWN: what the canonical values say now
          reevaluation.followCanonical(c, key);
        }
        int[] at = new int[2];
        String now = state(c, key, at);
        record(c, key, null, outcome, "UNKNOWN", now, receipt, by, reason);
        c.commit();
        return new Settled(key, "UNKNOWN", now, at[0], at[1]);
      } catch (SQLException | RuntimeException | Refused e) {
        c.rollback();
        throw e;
      }
    }
  }

  /**
   * Closes an open compensation record of {@code model}: the person dealt with it (who, when, why).
   * A closed record is refused, naming who closed it.
   */
  public Settlement closeCompensation(String model, long compensationId, String by, String reason)
      throws SQLException, Refused {
    requireReason(reason);
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        String key = null;
        try (PreparedStatement s =
            c.prepareStatement(
                "UPDATE streamform.effect_compensation k SET resolved_at = now(), resolution ="
                    + " 'done' FROM streamform.effect e WHERE e.effect_key = k.effect_key AND"
                    + " e.model = ? AND k.compensation_id = ? AND k.resolved_at IS NULL"
                    + " RETURNING k.effect_key")) {
          s.setString(1, model);
          s.setLong(2, compensationId);
          try (ResultSet rs = s.executeQuery()) {
            if (rs.next()) {
              key = rs.getString(1);
            }
          }
        }
        if (key == null) {
          c.rollback();
          throw new Refused(whyNotOpen(c, model, compensationId));
        }
        record(c, key, compensationId, "done", null, null, null, by, reason);
        c.commit();
        return settlements(c, model).stream()
            .filter(x -> x.compensationId() != null && x.compensationId() == compensationId)
            .findFirst()
            .orElseThrow();
      } catch (SQLException | RuntimeException | Refused e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** The model's settlements, oldest first. */
  public List<Settlement> settlements(String model) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      List<Settlement> out = settlements(c, model);
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return out;
    }
  }

  private static List<Settlement> settlements(Connection c, String model) throws SQLException {
    List<Settlement> out = new ArrayList<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT s.effect_key, s.compensation_id, s.outcome, s.to_state, s.receipt, s.actor,"
                + " s.reason, s.at FROM streamform.effect_settlement s JOIN streamform.effect e"
                + " USING (effect_key) WHERE e.model = ? ORDER BY s.settlement_id")) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          long id = rs.getLong(2);
          Long compensationId = rs.wasNull() ? null : id;
          out.add(
              new Settlement(
                  rs.getString(1),
                  compensationId,
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6),
                  rs.getString(7),
                  rs.getObject(8, OffsetDateTime.class).toInstant()));
        }
      }
    }
    return out;
  }

  private static void requireReason(String reason) throws Refused {
    if (reason == null || reason.isBlank()) {
      throw new Refused("a settlement needs a reason (--reason TEXT): why the person settles it");
    }
  }

  /** The one effect of {@code model} whose key starts with {@code prefix}. */
  private static String resolve(Connection c, String model, String prefix)
      throws SQLException, Refused {
    String p = prefix.toLowerCase(Locale.ROOT);
    if (!p.matches("[0-9a-f]{1,64}")) {
      throw new Refused(
          "'" + prefix + "' is not an effect key prefix (hex digits, as effects show prints them)");
    }
    List<String> matches = new ArrayList<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT effect_key, state FROM streamform.effect WHERE model = ? AND"
                + " starts_with(effect_key, ?) ORDER BY effect_key LIMIT 11")) {
      s.setString(1, model);
      s.setString(2, p);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          matches.add(rs.getString(1) + " (" + rs.getString(2) + ")");
        }
      }
    }
    if (matches.isEmpty()) {
      throw new Refused("no effect of model " + model + " has a key starting with " + p);
    }
    if (matches.size() > 1) {
      throw new Refused(
          "effect key prefix "
              + p
              + " is ambiguous: it matches "
              + (matches.size() > 10 ? "more than 10" : String.valueOf(matches.size()))
              + " effects of model "
              + model
              + ": "
              + String.join(", ", matches.subList(0, Math.min(10, matches.size())))
              + "; give more of the key");
    }
    String only = matches.get(0);
    return only.substring(0, only.indexOf(' '));
  }

  private static String provider(Connection c, String key) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement("SELECT provider FROM streamform.effect WHERE effect_key = ?")) {
      s.setString(1, key);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  private static String state(Connection c, String key) throws SQLException {
    return state(c, key, new int[2]);
  }

  /** The effect's state; its generation and revision into {@code at}. */
  private static String state(Connection c, String key, int[] at) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT state, generation, revision FROM streamform.effect WHERE effect_key = ?")) {
      s.setString(1, key);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        at[0] = rs.getInt(2);
        at[1] = rs.getInt(3);
        return rs.getString(1);
      }
    }
  }

  /**
   * An incremental effect with deltas, or a delta, is not settled as never applied: the deltas
   * adjust from it, and their sum would no longer be the window's value.
   */
  private static void refuseDeltas(Connection c, String key) throws SQLException, Refused {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT e.delta_of IS NOT NULL, (SELECT count(*) FROM streamform.effect d WHERE"
                + " d.delta_of = e.effect_key) FROM streamform.effect e WHERE e.effect_key = ?")) {
      s.setString(1, key);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        if (rs.getBoolean(1) || rs.getInt(2) > 0) {
          throw new Refused(
              "effect "
                  + key
                  + (rs.getBoolean(1) ? " is a delta effect" : " has delta effects")
                  + ": settling it as never applied would leave the deltas adjusting from a"
                  + " value the provider never had; act at the provider, and settle it --applied"
                  + " if it was applied");
        }
      }
    }
  }

  /** One line: the key, its state, and why a person does not settle an effect in that state. */
  private static String notUnknown(String key, String state) {
    String why =
        switch (state) {
          case "DONE" -> "its outcome is known (a receipt or a settlement)";
          case "PREPARED" -> "nothing has been sent yet; a dispatcher delivers it";
          case "DISPATCHING" ->
              "a dispatcher is delivering it; its outcome, or the lease's expiry, settles it";
          case "CANCELLED" -> "its rule became false before anything was sent";
          case "NOT_APPLIED" -> "a person settled it as never applied; it is never sent again";
          default -> "only an UNKNOWN effect is settled by a person";
        };
    return "effect " + key + " is " + state + ", not UNKNOWN: " + why;
  }

  private static String whyNotOpen(Connection c, String model, long id) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT k.resolved_at, s.actor, s.reason, k.resolution FROM"
                + " streamform.effect_compensation k JOIN"
                + " streamform.effect e USING (effect_key) LEFT JOIN streamform.effect_settlement"
                + " s ON s.compensation_id = k.compensation_id WHERE e.model = ? AND"
                + " k.compensation_id = ?")) {
      s.setString(1, model);
      s.setLong(2, id);
      try (ResultSet rs = s.executeQuery()) {
        String why;
        if (!rs.next()) {
          why = "model " + model + " has no compensation " + id + " (effects show lists them)";
        } else {
          why =
              "compensation "
                  + id
                  + " is closed already: "
                  + rs.getObject(1, OffsetDateTime.class).toInstant()
                  + (rs.getString(2) != null
                      ? " by " + rs.getString(2) + ": " + rs.getString(3)
                      : rs.getString(4) == null || rs.getString(4).equals("done")
                          ? ""
                          : " " + rs.getString(4));
        }
        c.commit();
        return why;
      }
    }
  }

  private static void record(
      Connection c,
      String key,
      @Nullable Long compensationId,
      String outcome,
      @Nullable String from,
      @Nullable String to,
      @Nullable String receipt,
      String by,
      String reason)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect_settlement (effect_key, compensation_id, outcome,"
                + " from_state, to_state, receipt, actor, reason) VALUES (?, ?, ?, ?, ?, ?, ?,"
                + " ?)")) {
      s.setString(1, key);
      s.setObject(2, compensationId);
      s.setString(3, outcome);
      s.setString(4, from);
      s.setString(5, to);
      s.setString(6, receipt);
      s.setString(7, by);
      s.setString(8, reason);
      s.executeUpdate();
    }
  }
}
