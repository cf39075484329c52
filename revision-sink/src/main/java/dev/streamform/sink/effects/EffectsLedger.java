package dev.streamform.sink.effects;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.core.text.Counts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Reads the effect ledger of a model ({@code streamform effects show|verify}). Never changes it
 * ({@link EffectSettlement} records what a person settles).
 */
public final class EffectsLedger {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_LONG_FOR_INTS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private final DataSource dataSource;

  public EffectsLedger(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** One effect as stored; {@code windowStart} as its payload says it (RFC 3339). */
  public record Effect(
      String effectKey,
      String type,
      String subject,
      int generation,
      int madeTrueBy,
      int revision,
      String state,
      int attempts,
      String receipt,
      String lastError,
      String provider,
      int compensations,
      String windowStart) {
    public String line() {
      return effectKey.substring(0, 12)
          + "  "
          + type
          + "  subject "
          + subject
          + "  "
          + state
          + "  generation "
          + generation
          + " revision "
          + revision
          + " (made true by "
          + madeTrueBy
          + ")  attempts "
          + attempts
          + (receipt == null ? "" : "  receipt " + receipt)
          + (lastError == null ? "" : "  last error: " + lastError)
          + (compensations == 0 ? "" : "  compensations " + compensations);
    }
  }

  /**
   * A compensation record for a person; {@code closed} says when, by whom and why the person closed
   * it ({@code streamform effects settle --compensation ID --done}), null while it is open.
   */
  public record Compensation(
      long id,
      String effectKey,
      int generation,
      int revision,
      String effectState,
      String reason,
      @Nullable String closed) {
    public String line() {
      return id
          + "  "
          + effectKey.substring(0, 12)
          + "  "
          + reason
          + " by generation "
          + generation
          + " revision "
          + revision
          + " (effect was "
          + effectState
          + ")"
          + (closed == null ? "" : "  closed " + closed);
    }
  }

  /** The result of {@link #verify}: figures, and one line per broken invariant. */
  public record Verification(Map<String, Integer> figures, List<String> problems) {
    public boolean ok() {
      return problems.isEmpty();
    }
  }

  /**
   * The model each of {@code keys} is an effect of, for the keys the ledger holds (every state,
   * deltas included); a key the ledger does not hold is absent. What {@code streamform gates}
   * attributes a provider's deliveries by.
   */
  public Map<String, String> owners(java.util.Collection<String> keys) throws SQLException {
    Map<String, String> out = new TreeMap<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT effect_key, model FROM streamform.effect WHERE effect_key = ANY(?)")) {
      s.setArray(1, c.createArrayOf("text", keys.toArray()));
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getString(2));
        }
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
    return out;
  }

  /** How many effect keys {@code model} has in the ledger, in any state. */
  public int keyCount(String model) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT count(*) FROM streamform.effect WHERE model = ?")) {
      s.setString(1, model);
      int n;
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        n = rs.getInt(1);
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return n;
    }
  }

  public List<Effect> effects(String model) throws SQLException {
    List<Effect> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT e.effect_key, e.effect_type, e.subject::text, e.generation, e.made_true_by,"
                    + " e.revision, e.state, e.attempts, e.receipt, e.last_error, e.provider,"
                    + " (SELECT count(*) FROM streamform.effect_compensation k WHERE k.effect_key ="
                    + " e.effect_key), e.payload->>'window_start', e.receipt_error,"
                    + " e.receipt_queries FROM streamform.effect e WHERE e.model = ? ORDER BY"
                    + " e.prepared_at, e.effect_key")) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(
              new Effect(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getInt(4),
                  rs.getInt(5),
                  rs.getInt(6),
                  rs.getString(7),
                  rs.getInt(8),
                  rs.getString(9),
                  lastError(rs.getString(10), rs.getString(14), rs.getInt(15)),
                  rs.getString(11),
                  rs.getInt(12),
                  rs.getString(13)));
        }
      }
      c.commit();
    }
    return out;
  }

  /**
   * The last error as a person reads it: the last attempt's, then what the receipt queries since
   * said when they left the effect UNKNOWN (failed, or found it never applied and it cannot be sent
   * again), e.g. {@code HTTP 500 boom; receipt query failed: HTTP 503 (2 receipt queries since)}.
   */
  static @Nullable String lastError(
      @Nullable String attempt, @Nullable String receiptError, int receiptQueries) {
    if (receiptError == null) {
      return attempt;
    }
    String queries =
        receiptError
            + " ("
            + Counts.of(receiptQueries, "receipt query", "receipt queries")
            + " since)";
    return attempt == null ? queries : attempt + "; " + queries;
  }

  public List<Compensation> compensations(String model) throws SQLException {
    List<Compensation> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT k.compensation_id, k.effect_key, k.generation, k.revision, k.effect_state,"
                    + " k.reason, k.resolved_at, s.actor, s.reason, k.resolution FROM"
                    + " streamform.effect_compensation k JOIN streamform.effect e USING"
                    + " (effect_key) LEFT JOIN streamform.effect_settlement s ON s.compensation_id"
                    + " = k.compensation_id WHERE e.model = ? ORDER BY k.compensation_id")) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          java.time.OffsetDateTime resolved = rs.getObject(7, java.time.OffsetDateTime.class);
          String closed =
              resolved == null
                  ? null
                  : resolved.toInstant()
                      + (rs.getString(8) != null
                          ? " by " + rs.getString(8) + ": " + rs.getString(9)
                          // closed by a dispatcher whose attempt sent nothing (ADR 0202)
                          : rs.getString(10) == null || rs.getString(10).equals("done")
                              ? ""
                              : " " + rs.getString(10));
          out.add(
              new Compensation(
                  rs.getLong(1),
                  rs.getString(2),
                  rs.getInt(3),
                  rs.getInt(4),
                  rs.getString(5),
                  rs.getString(6),
                  closed));
        }
      }
      c.commit();
    }
    return out;
  }

  /**
   * Checks the invariants: every effect key and payload digest recomputes from what is stored; DONE
   * effects have a receipt and were dispatched; no effect was delivered again after an unknown
   * outcome unless a receipt query said it was never applied and the provider dedupes by key; an
   * effect of a provider with neither capability was dispatched at most once; every effect's window
   * has a projection at or beyond the revision that confirmed it. A person's settlement (ADR 0140)
   * counts as a receipt: each move it made (UNKNOWN to DONE, PREPARED or NOT_APPLIED) has its
   * recorded settlement, NOT_APPLIED has one, and an effect was made PREPARED again after UNKNOWN
   * only by a settlement or a receipt query that found it never applied (the dispatcher, when its
   * window moved meanwhile: ADR 0159), and only when its provider dedupes by key. Each claim
   * confirmed what was canonical as it recorded it, and an effect sent carries what its last claim
   * confirmed (ADR 0161); a claim with no record is counted ({@code claims that cannot be
   * checked}), not flagged.
   */
  public Verification verify(String model) throws SQLException {
    Map<String, Integer> figures = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT e.effect_key, e.effect_type, e.logical_window_id, e.subject::text,"
                  + " e.payload::text, e.payload_digest, e.state, e.attempts, e.receipt,"
                  + " e.provider, e.revision, (SELECT max(p.revision) FROM streamform.projection p "
                  + "  WHERE p.logical_window_id = e.logical_window_id AND p.generation ="
                  + " e.generation), (SELECT count(*) FROM streamform.effect_transition t WHERE"
                  + " t.effect_key = e.effect_key   AND t.to_state = 'DISPATCHING'), (SELECT"
                  + " count(*) FROM streamform.effect_transition t WHERE t.effect_key ="
                  + " e.effect_key   AND t.from_state = 'UNKNOWN' AND t.to_state = 'DISPATCHING'  "
                  + " AND t.note NOT LIKE 'receipt query: never applied%'), e.delta_of,"
                  + " e.made_true_by, (SELECT count(*) FROM streamform.effect_transition t WHERE"
                  + " t.effect_key = e.effect_key AND t.from_state = 'UNKNOWN' AND t.to_state IN"
                  + " ('DONE', 'PREPARED', 'NOT_APPLIED') AND t.note LIKE 'settled by %'), (SELECT"
                  + " count(*) FROM streamform.effect_settlement x WHERE x.effect_key ="
                  + " e.effect_key AND x.compensation_id IS NULL), (SELECT count(*) FROM"
                  + " streamform.effect_transition t WHERE t.effect_key = e.effect_key AND"
                  + " t.from_state = 'UNKNOWN' AND t.to_state = 'PREPARED' AND (t.note LIKE"
                  + " 'settled by %' OR t.note LIKE 'receipt query: never applied%')), (SELECT"
                  + " count(*) FROM streamform.effect_transition t WHERE t.effect_key ="
                  + " e.effect_key AND t.from_state = 'UNKNOWN' AND t.to_state = 'PREPARED' AND"
                  + " t.note NOT LIKE 'settled by %' AND t.note NOT LIKE 'nothing sent: %' AND"
                  + " t.note NOT LIKE 'receipt query: never applied%'), e.generation,"
                  + " e.predecessor FROM streamform.effect e WHERE e.model = ?")) {
        s.setString(1, model);
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            String key = rs.getString(1);
            String label = key.substring(0, 12);
            figures.merge("effects", 1, Integer::sum);
            figures.merge("state " + rs.getString(7), 1, Integer::sum);
            Object subject = parse(rs.getString(4));
            String deltaOf = rs.getString(15);
            if (deltaOf != null) {
              figures.merge("deltas", 1, Integer::sum);
              String predecessor = rs.getString(22);
              if (!EffectIdentity.deltaKey(deltaOf, rs.getInt(16)).equals(key)
                  && (predecessor == null
                      || !EffectIdentity.deltaKey(
                              deltaOf, rs.getInt(16), rs.getInt(21), predecessor)
                          .equals(key))) {
                problems.add(
                    label
                        + ": the delta's key does not recompute from its base and revision (nor"
                        + " with its generation and predecessor)");
              }
            } else if (!EffectIdentity.effectKey(rs.getString(2), rs.getString(3), subject)
                .equals(key)) {
              problems.add(label + ": the key does not recompute from type, window and subject");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> payload = (Map<String, Object>) parse(rs.getString(5));
            if (!EffectIdentity.payloadDigest(payload).equals(rs.getString(6))) {
              problems.add(label + ": the payload digest does not recompute from the payload");
            }
            String state = rs.getString(7);
            int dispatches = rs.getInt(13);
            if (state.equals("DONE") && (rs.getString(9) == null || dispatches == 0)) {
              problems.add(label + ": DONE without a receipt or a dispatch");
            }
            if (rs.getInt(14) > 0) {
              problems.add(label + ": dispatched again after UNKNOWN without a receipt query");
            }
            String provider = rs.getString(10);
            // a person's settlement (ADR 0140) is a receipt: each move it made is recorded
            int settledMoves = rs.getInt(17);
            int settlements = rs.getInt(18);
            if (settledMoves != settlements) {
              problems.add(
                  label
                      + ": "
                      + Counts.of(settledMoves, "move")
                      + " by a person's settlement but "
                      + Counts.of(settlements, "settlement")
                      + " recorded");
            }
            if (state.equals("NOT_APPLIED") && settlements == 0) {
              problems.add(label + ": NOT_APPLIED without a person's settlement");
            }
            // PREPARED again after UNKNOWN: by a settlement or a receipt query that found it never
            // applied, for a provider that dedupes by key, or by a late outcome that proved nothing
            // was sent (a refused connection)
            if (rs.getInt(19) > 0 && !provider.contains("idempotency: key")) {
              problems.add(
                  label
                      + ": prepared again after UNKNOWN, and its provider does not dedupe by key");
            } else if (rs.getInt(20) > 0) {
              problems.add(
                  label
                      + ": prepared again after UNKNOWN without a person's settlement or a receipt"
                      + " query");
            }
            if (provider.contains("idempotency: none")
                && provider.contains("receipts: false")
                && dispatches > 1) {
              figures.merge("blind retries", 1, Integer::sum);
              problems.add(
                  label
                      + ": dispatched "
                      + dispatches
                      + " times by a provider with neither idempotency keys nor receipt queries");
            }
            Object current = rs.getObject(12);
            if (current == null || ((Number) current).intValue() < rs.getInt(11)) {
              problems.add(label + ": its window has no projection at revision " + rs.getInt(11));
            }
            figures.merge("dispatches", dispatches, Integer::sum);
          }
        }
      }
      claims(c, model, figures, problems);
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT count(*) FROM streamform.effect_compensation k JOIN streamform.effect e USING"
                  + " (effect_key) WHERE e.model = ? AND k.resolved_at IS NULL")) {
        s.setString(1, model);
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          figures.put("open compensations", rs.getInt(1));
        }
      }
      c.commit();
    }
    return new Verification(figures, problems);
  }

  /**
   * Checks each claim against what it recorded it confirmed (ADR 0161): the generation is the one
   * the alias gave the window's key at the version the claim read, that generation has the revision
   * for the window, and an effect sent (DISPATCHING, UNKNOWN or DONE) carries the generation and
   * revision its last claim confirmed. A claim recorded before V177 (no record), or under alias
   * version 0 (the alias as it stood before V177, since moved: no history row describes it), is
   * counted as unchecked, never flagged: nothing tells what it read. Any other version no history
   * row describes and the alias is not at was never the alias's: a problem.
   */
  private static void claims(
      Connection c, String model, Map<String, Integer> figures, List<String> problems)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT e.effect_key, e.logical_window_id, w.k::text, e.state, e.generation,"
                + " e.revision, e.attempts, t.confirmed_generation, t.confirmed_revision,"
                + " t.alias_version, t.attempt, CASE WHEN h.model IS NOT NULL THEN"
                + " streamform.generation_for_key(h.generation, h.canary_generation,"
                + " h.canary_basis_points, w.k) WHEN a.version = t.alias_version THEN"
                + " streamform.generation_for_key(a.generation, a.canary_generation,"
                + " a.canary_basis_points, w.k) END, (SELECT max(p.revision) FROM"
                + " streamform.projection p WHERE p.logical_window_id = e.logical_window_id AND"
                + " p.generation = t.confirmed_generation), a.version, e.payload->>'window_start'"
                + " FROM streamform.effect e JOIN"
                + " streamform.effect_transition t ON t.effect_key = e.effect_key AND t.to_state"
                + " = 'DISPATCHING' LEFT JOIN LATERAL (SELECT p.window_key AS k FROM"
                + " streamform.projection p WHERE p.logical_window_id = e.logical_window_id"
                + " LIMIT 1) w ON true LEFT JOIN streamform.canonical_alias a ON a.model ="
                + " e.model LEFT JOIN streamform.canonical_alias_history h ON h.model = e.model"
                + " AND h.version = t.alias_version WHERE e.model = ? ORDER BY e.effect_key,"
                + " t.attempt")) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          String start = rs.getString(15);
          String label =
              rs.getString(1).substring(0, 12)
                  + " (window "
                  + (start == null ? "" : start + " ")
                  + rs.getString(2).substring(0, 12)
                  + ", key "
                  + rs.getString(3)
                  + ")";
          if (rs.getObject(8) == null
              || rs.getObject(9) == null
              || rs.getObject(10) == null
              || rs.getObject(11) == null) {
            figures.merge("claims that cannot be checked", 1, Integer::sum);
            continue;
          }
          if (rs.getObject(12) == null) {
            long recorded = rs.getLong(10);
            long current = rs.getLong(14);
            if (recorded == 0 && current > 0) {
              // the alias as it stood before the ledger numbered its versions: no row says it
              figures.merge("claims that cannot be checked", 1, Integer::sum);
            } else {
              figures.merge("claims checked", 1, Integer::sum);
              problems.add(
                  label
                      + ": attempt "
                      + rs.getInt(11)
                      + " recorded alias version "
                      + recorded
                      + ", which the alias never had (it is at version "
                      + current
                      + ")");
            }
            continue;
          }
          figures.merge("claims checked", 1, Integer::sum);
          String state = rs.getString(4);
          int generation = rs.getInt(8);
          int revision = rs.getInt(9);
          long version = rs.getLong(10);
          int attempt = rs.getInt(11);
          int aliasGave = rs.getInt(12);
          String claim = "attempt " + attempt + " confirmed generation " + generation;
          if (aliasGave != generation) {
            problems.add(
                label
                    + ": "
                    + claim
                    + " but the alias at version "
                    + version
                    + " gave its key generation "
                    + aliasGave);
          }
          Object newest = rs.getObject(13);
          if (newest == null || ((Number) newest).intValue() < revision) {
            problems.add(
                label
                    + ": "
                    + claim
                    + " revision "
                    + revision
                    + " but generation "
                    + generation
                    + " has no revision "
                    + revision
                    + " of its window"
                    + (newest == null ? "" : " (its newest is " + newest + ")"));
          }
          boolean sent = List.of("DISPATCHING", "UNKNOWN", "DONE").contains(state);
          if (sent
              && attempt == rs.getInt(7)
              && (rs.getInt(5) != generation || rs.getInt(6) != revision)) {
            problems.add(
                label
                    + ": "
                    + claim
                    + " revision "
                    + revision
                    + " (alias version "
                    + version
                    + ") but it sent generation "
                    + rs.getInt(5)
                    + " revision "
                    + rs.getInt(6)
                    + " ("
                    + state
                    + ")");
          }
        }
      }
    }
  }

  private static Object parse(String json) {
    try {
      return JSON.readValue(json, Object.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unparseable JSON in the effect ledger: " + json, e);
    }
  }
}
