package dev.streamform.sink;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.EffectRule;
import java.io.Serializable;
import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.schemas.Schema;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactional outbox of one-time effects (docs/semantics.md §10): in the transaction that
 * applies a batch of revisions, each rule of its model is evaluated on every revision of a window's
 * canonical generation the batch applied, in revision order, and the effect ledger is brought in
 * line with each in turn, as if each revision had a transaction of its own (where a batch ends
 * changes nothing; ADR 0109):
 *
 * <ul>
 *   <li>no effect yet and the rule is true: the effect is written {@code PREPARED} with its payload
 *       and digest (nothing has been sent: this is the recovery point before any I/O);
 *   <li>{@code PREPARED} (or {@code CANCELLED}) and the rule true: the effect follows the revision
 *       (payload, digest, confirming revision), {@code CANCELLED} becomes {@code PREPARED} again;
 *   <li>{@code PREPARED} and the rule false: {@code CANCELLED} — nothing was sent;
 *   <li>{@code DISPATCHING}, {@code UNKNOWN} or {@code DONE} and the rule false or the payload
 *       changed: a compensation record for a person; the effect row is not touched;
 *   <li>{@code NOT_APPLIED} (a person settled it never applied, its provider does not dedupe by
 *       key: ADR 0140): nothing, whatever the revision — it is never sent again;
 *   <li>the same revision again, or a revision that changes nothing of the effect: nothing.
 * </ul>
 *
 * A revision of a generation that is not its model's canonical one prepares nothing (an older or
 * shadow job can never cause an effect); under a canary ({@link CanaryShare}) that is decided per
 * key: a window acts for the generation its key reads. The alias is read {@code FOR SHARE}, so an
 * {@code alias set} (which takes the row {@code FOR UPDATE}) either waits for this transaction or
 * is seen by it: a generation demoted meanwhile prepares and cancels nothing. Effect rows are
 * locked ({@code FOR UPDATE}) so a dispatcher claiming them concurrently either sees the effect
 * before or after this transaction.
 *
 * <p>A rule is evaluated on the revision's columns typed by the model's output schema (a revision
 * released from the held table is read back from its JSON by that schema). A rule that cannot be
 * evaluated on a revision (a comparison of values that do not compare, a schema that is not known)
 * leaves that effect as it is and is recorded in {@code effect_rule_error}; the batch goes on,
 * since retrying it would only fail the same way.
 */
final class EffectOutbox implements Serializable {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_LONG_FOR_INTS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
  private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {};
  private static final Logger LOG = LoggerFactory.getLogger(EffectOutbox.class);

  private final Map<String, List<EffectRule>> rulesByModel;

  /** What one batch did to the effect ledger. */
  record Outcome(int prepared, int updated, int cancelled, int compensations, int ruleErrors) {
    static final Outcome NONE = new Outcome(0, 0, 0, 0, 0);
  }

  EffectOutbox(List<EffectRule> rules) {
    Map<String, List<EffectRule>> byModel = new HashMap<>();
    for (EffectRule r : rules) {
      byModel.computeIfAbsent(r.model(), k -> new ArrayList<>()).add(r);
    }
    this.rulesByModel = byModel;
  }

  boolean isEmpty() {
    return rulesByModel.isEmpty();
  }

  private record Existing(String state, String payloadDigest, int revision, int generation) {}

  private record Wanted(
      EffectRule rule,
      StoredRevision revision,
      String key,
      Object subject,
      boolean holds,
      Map<String, Object> payload,
      String digest,
      Map<String, Object> typed) {}

  /** A rule that could not be evaluated on a revision. */
  private record RuleError(EffectRule rule, StoredRevision revision, String error) {}

  /** The key of {@link #apply}'s {@code schemas}: a model's generation. */
  static String schemaKey(String model, int generation) {
    return model + "/" + generation;
  }

  /**
   * Brings the effect ledger in line with each of {@code revisions} in turn (every revision the
   * batch applied, each projection's in revision order; the alias moving: each window's canonical
   * revision), in {@code c}'s transaction. {@code schemas} holds the output schema (key and value
   * columns) of each model's generation ({@link #schemaKey}), by which the stored JSON of a
   * revision is typed.
   */
  Outcome apply(
      Connection c,
      List<StoredRevision> revisions,
      Map<String, Schema> schemas,
      Map<String, Integer> firstGenerations)
      throws SQLException {
    List<StoredRevision> relevant = new ArrayList<>();
    for (StoredRevision r : revisions) {
      if (rulesByModel.containsKey(r.model())) {
        relevant.add(r);
      }
    }
    if (relevant.isEmpty()) {
      return Outcome.NONE;
    }
    Map<String, Alias> canonical = canonicalGenerations(c, relevant, firstGenerations);
    Map<String, Integer> buckets = buckets(c, relevant, canonical);
    List<Wanted> wanted = new ArrayList<>();
    List<RuleError> errors = new ArrayList<>();
    for (StoredRevision r : relevant) {
      Alias alias = canonical.get(r.model());
      // a canary: the generation this window's key reads
      if (alias == null || alias.generationFor(buckets.get(r.keyJson())) != r.generation()) {
        continue;
      }
      Map<String, Object> key = parse(r.keyJson());
      Map<String, Object> values = parse(r.valuesJson());
      Map<String, Object> plain = new HashMap<>(key);
      plain.putAll(values);
      plain.put(WINDOW_START, r.windowStart());
      plain.put(WINDOW_END, r.windowEnd());
      Schema schema = schemas.get(schemaKey(r.model(), r.generation()));
      Map<String, Object> columns = null;
      String typingError = null;
      try {
        columns = typed(plain, schema, r);
      } catch (RuntimeException e) {
        typingError = e.getMessage();
      }
      for (EffectRule rule : rulesByModel.get(r.model())) {
        if (typingError != null) {
          errors.add(new RuleError(rule, r, typingError));
          continue;
        }
        Object subject = plain.get(rule.subject());
        if (subject == null) {
          continue;
        }
        Map<String, Object> cols = columns;
        try {
          boolean holds = rule.condition().predicate().test(cols::get);
          String effectKey = EffectIdentity.effectKey(rule.type(), r.logicalWindowId(), subject);
          Map<String, Object> payload =
              EffectIdentity.payload(
                  effectKey,
                  rule.type(),
                  subject,
                  r.model(),
                  r.windowStart(),
                  r.windowEnd(),
                  key,
                  values);
          wanted.add(
              new Wanted(
                  rule,
                  r,
                  effectKey,
                  subject,
                  holds,
                  payload,
                  EffectIdentity.payloadDigest(payload),
                  cols));
        } catch (RuntimeException e) {
          // evaluating again gives the same error: record it rather than fail (and retry) the batch
          errors.add(new RuleError(rule, r, String.valueOf(e.getMessage())));
        }
      }
    }
    for (RuleError e : errors) {
      recordError(c, e);
    }
    if (wanted.isEmpty()) {
      return new Outcome(0, 0, 0, 0, errors.size());
    }
    Map<String, Existing> existing = lockExisting(c, wanted);
    int prepared = 0;
    int updated = 0;
    int cancelled = 0;
    int compensations = 0;
    // in revision order: each revision sees the effect as the one before it left it
    for (Wanted w : wanted) {
      Existing e = existing.get(w.key());
      StoredRevision r = w.revision();
      if (e == null) {
        if (w.holds()) {
          insert(c, w);
          existing.put(w.key(), new Existing("PREPARED", w.digest(), r.revision(), r.generation()));
          transition(
              c, w.key(), null, "PREPARED", r.revision(), "rule `" + w.rule().when() + "` true");
          prepared++;
        }
      } else if (e.state().equals("PREPARED") || e.state().equals("CANCELLED")) {
        if (w.holds()) {
          if (e.state().equals("CANCELLED")
              || !e.payloadDigest().equals(w.digest())
              || e.revision() != r.revision()
              // a promotion: the same values under the new generation, which the dispatcher
              // confirms
              || e.generation() != r.generation()) {
            follow(c, w, e.state().equals("CANCELLED"));
            existing.put(
                w.key(), new Existing("PREPARED", w.digest(), r.revision(), r.generation()));
            if (e.state().equals("CANCELLED")) {
              transition(c, w.key(), "CANCELLED", "PREPARED", r.revision(), "rule true again");
              prepared++;
            } else {
              updated++;
            }
          }
        } else if (e.state().equals("PREPARED")) {
          cancel(c, w);
          existing.put(
              w.key(), new Existing("CANCELLED", e.payloadDigest(), r.revision(), r.generation()));
          transition(
              c, w.key(), "PREPARED", "CANCELLED", r.revision(), "rule false before dispatch");
          cancelled++;
        }
      } else if (e.state().equals("NOT_APPLIED")) {
        // a person settled it never applied, for a provider that does not dedupe by key (ADR
        // 0140): nothing happened and nothing is sent again, so a correction has nothing to
        // compensate or adjust
        continue;
      } else if (w.rule().incremental()) {
        // dispatched: the provider takes adjustments, so the correction is a delta effect
        if (delta(c, w)) {
          prepared++;
        }
      } else if (!w.holds() || !e.payloadDigest().equals(w.digest())) {
        if (compensate(c, w, e.state())) {
          compensations++;
        }
      }
    }
    return new Outcome(prepared, updated, cancelled, compensations, errors.size());
  }

  private static final String WINDOW_START = "window_start";
  private static final String WINDOW_END = "window_end";

  /**
   * The revision's columns as the rule's condition sees them, each typed by {@code schema}: the
   * ledger's canonical JSON keeps decimals, doubles and timestamps as strings, so the column's
   * declared type (never the look of the value) says which of them a string is.
   */
  private static Map<String, Object> typed(
      Map<String, Object> plain, @Nullable Schema schema, StoredRevision r) {
    if (schema == null) {
      throw new IllegalStateException(
          "the output schema of generation "
              + r.generation()
              + " of model "
              + r.model()
              + " is not known to this writer, so the stored values cannot be typed");
    }
    Map<String, Object> out = new HashMap<>();
    out.put(WINDOW_START, r.windowStart());
    out.put(WINDOW_END, r.windowEnd());
    for (Schema.Field f : schema.getFields()) {
      Object v = plain.get(f.getName());
      out.put(f.getName(), v == null ? null : typed(v, f.getType(), f.getName()));
    }
    return out;
  }

  private static Object typed(Object v, Schema.FieldType type, String column) {
    Schema.TypeName name = type.getTypeName();
    if (name == Schema.TypeName.LOGICAL_TYPE) {
      return typed(v, type.getLogicalType().getBaseType(), column);
    }
    try {
      switch (name) {
        case DECIMAL:
          return new BigDecimal(v.toString());
        case DOUBLE:
        case FLOAT:
          return Double.valueOf(v.toString());
        case DATETIME:
          return java.time.Instant.parse(v.toString());
        case BYTE:
        case INT16:
        case INT32:
        case INT64:
          return ((Number) v).longValue();
        default:
          return v;
      }
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "column "
              + column
              + " holds "
              + RevisionIdentity.canonical(v)
              + ", which is not a "
              + name,
          e);
    }
  }

  private static void recordError(Connection c, RuleError e) throws SQLException {
    StoredRevision r = e.revision();
    LOG.warn(
        "streamform sink: effect rule {} (`{}`) cannot be evaluated on {}: {}; recorded in"
            + " streamform.effect_rule_error, the effect is left as it is",
        e.rule().type(),
        e.rule().when(),
        r.label(),
        e.error());
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect_rule_error (model, effect_type, rule, logical_window_id,"
                + " projection_id, generation, revision, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                + " ON CONFLICT (projection_id, revision, effect_type) DO NOTHING")) {
      s.setString(1, r.model());
      s.setString(2, e.rule().type());
      s.setString(3, e.rule().when());
      s.setString(4, r.logicalWindowId());
      s.setString(5, r.projectionId());
      s.setInt(6, r.generation());
      s.setInt(7, r.revision());
      s.setString(8, e.error());
      s.executeUpdate();
    }
  }

  /**
   * A model's alias: its canonical generation, and a canary for the keys its share covers ({@link
   * CanaryShare#covers}), when one is in force.
   */
  private record Alias(int generation, @Nullable CanaryShare canary) {
    int generationFor(@Nullable Integer bucket) {
      return canary != null && bucket != null && canary.covers(bucket)
          ? canary.generation()
          : generation;
    }
  }

  private static Map<String, Alias> canonicalGenerations(
      Connection c, List<StoredRevision> revisions, Map<String, Integer> firstGenerations)
      throws SQLException {
    String[] models =
        revisions.stream().map(StoredRevision::model).distinct().toArray(String[]::new);
    Map<String, Alias> out = new HashMap<>();
    firstGenerations.forEach((model, gen) -> out.put(model, new Alias(gen, null)));
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT model, generation, canary_generation, canary_basis_points FROM"
                + " streamform.canonical_alias WHERE model = ANY(?)"
                // the lock `alias set` waits for (it takes FOR UPDATE): no demoted generation acts
                + " ORDER BY model FOR SHARE")) {
      s.setArray(1, c.createArrayOf("text", models));
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.put(
              rs.getString(1),
              new Alias(
                  rs.getInt(2),
                  rs.getObject(3) == null ? null : new CanaryShare(rs.getInt(3), rs.getInt(4))));
        }
      }
    }
    return out;
  }

  /**
   * The bucket of each key (its stored JSON) of a model that has a canary, by the database's own
   * {@code streamform.key_bucket} — the function the canonical view resolves by.
   */
  private static Map<String, Integer> buckets(
      Connection c, List<StoredRevision> revisions, Map<String, Alias> aliases)
      throws SQLException {
    String[] keys =
        revisions.stream()
            .filter(r -> aliases.containsKey(r.model()) && aliases.get(r.model()).canary() != null)
            .map(StoredRevision::keyJson)
            .distinct()
            .toArray(String[]::new);
    Map<String, Integer> out = new HashMap<>();
    if (keys.length == 0) {
      return out;
    }
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT k, streamform.key_bucket(k::jsonb) FROM unnest(?::text[]) AS k")) {
      s.setArray(1, c.createArrayOf("text", keys));
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getInt(2));
        }
      }
    }
    return out;
  }

  private static Map<String, Existing> lockExisting(Connection c, List<Wanted> wanted)
      throws SQLException {
    String[] keys = wanted.stream().map(Wanted::key).sorted().distinct().toArray(String[]::new);
    Map<String, Existing> out = new HashMap<>();
    Array array = c.createArrayOf("text", keys);
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT effect_key, state, payload_digest, revision, generation FROM streamform.effect"
                + " WHERE effect_key = ANY(?) ORDER BY effect_key FOR UPDATE")) {
      s.setArray(1, array);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.put(
              rs.getString(1),
              new Existing(rs.getString(2), rs.getString(3), rs.getInt(4), rs.getInt(5)));
        }
      }
    }
    return out;
  }

  private static void insert(Connection c, Wanted w) throws SQLException {
    StoredRevision r = w.revision();
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect (effect_key, effect_type, model, logical_window_id,"
                + " subject, generation, made_true_by, revision, provider, payload, payload_digest,"
                + " state) VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?::jsonb, ?, 'PREPARED')")) {
      s.setString(1, w.key());
      s.setString(2, w.rule().type());
      s.setString(3, r.model());
      s.setString(4, r.logicalWindowId());
      s.setString(5, RevisionIdentity.canonical(w.subject()));
      s.setInt(6, r.generation());
      s.setInt(7, r.revision());
      s.setInt(8, r.revision());
      s.setString(9, w.rule().provider().describe());
      s.setString(10, RevisionIdentity.canonical(w.payload()));
      s.setString(11, w.digest());
      s.executeUpdate();
    }
  }

  private static void follow(Connection c, Wanted w, boolean reopen) throws SQLException {
    StoredRevision r = w.revision();
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE streamform.effect SET payload = ?::jsonb, payload_digest = ?, revision = ?,"
                + " generation = ?, state = 'PREPARED', updated_at = now()"
                + (reopen ? ", made_true_by = ?" : "")
                + " WHERE effect_key = ? AND state IN ('PREPARED', 'CANCELLED')")) {
      int i = 1;
      s.setString(i++, RevisionIdentity.canonical(w.payload()));
      s.setString(i++, w.digest());
      s.setInt(i++, r.revision());
      s.setInt(i++, r.generation());
      if (reopen) {
        s.setInt(i++, r.revision());
      }
      s.setString(i, w.key());
      if (s.executeUpdate() != 1) {
        throw new SQLException("effect " + w.key() + " moved under its row lock", "40001");
      }
    }
  }

  private static void cancel(Connection c, Wanted w) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE streamform.effect SET state = 'CANCELLED', revision = ?, generation = ?,"
                + " updated_at = now() WHERE effect_key = ? AND state = 'PREPARED'")) {
      s.setInt(1, w.revision().revision());
      s.setInt(2, w.revision().generation());
      s.setString(3, w.key());
      if (s.executeUpdate() != 1) {
        throw new SQLException("effect " + w.key() + " moved under its row lock", "40001");
      }
    }
  }

  /** A row of an incremental effect's chain: the base effect or one of its deltas. */
  private record Link(
      String key,
      String state,
      int generation,
      @org.checkerframework.checker.nullness.qual.Nullable String predecessor,
      Map<String, Object> values) {}

  /**
   * For an incremental effect already dispatched: the correction {@code w} as a delta effect of its
   * own, from the values the provider was last sent to the window's values now. What was last sent
   * is the end of the chain of sent links (the base effect, then each delta sent or being sent,
   * each naming the one before it as its predecessor). A delta still PREPARED is overtaken:
   * CANCELLED, and the new delta carries its change too — unless it already brings the values to
   * {@code w}'s (a replay, or the same values again), which leaves everything as it is; so does a
   * correction that moves nothing since what was sent.
   *
   * <p>The delta's key is {@code H(["delta", effect_key, revision])}; when a delta of another
   * generation or from another predecessor holds that key already — the alias moved between
   * generations whose windows have the same revision numbers, or back to a revision it showed
   * before — it is {@code H(["delta", effect_key, revision, generation, predecessor])}, which names
   * the values moved from and to, so the same move again finds its own delta (revived if it was
   * cancelled unsent) rather than a second one (ADR 0049). Returns whether a delta was prepared.
   */
  private static boolean delta(Connection c, Wanted w) throws SQLException {
    StoredRevision r = w.revision();
    Map<String, Link> links = new LinkedHashMap<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT effect_key, state, generation, predecessor, payload::text FROM"
                + " streamform.effect WHERE effect_key = ? OR delta_of = ? ORDER BY delta_of NULLS"
                + " FIRST, prepared_at, made_true_by FOR UPDATE")) {
      s.setString(1, w.key());
      s.setString(2, w.key());
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          links.put(
              rs.getString(1),
              new Link(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getInt(3),
                  rs.getString(4),
                  values(parse(rs.getString(5)))));
        }
      }
    }
    // the sent chain: from the base, each next link a delta neither cancelled nor waiting to be
    // sent
    Link sent = links.get(w.key());
    List<Link> pending = new ArrayList<>();
    for (Link l : links.values()) {
      if (l.state().equals("PREPARED") && !l.key().equals(w.key())) {
        pending.add(l);
      }
    }
    boolean moved = true;
    while (moved) {
      moved = false;
      for (Link l : links.values()) {
        if (sent.key().equals(l.predecessor())
            && !l.state().equals("CANCELLED")
            && !l.state().equals("PREPARED")) {
          sent = l;
          moved = true;
          break;
        }
      }
    }
    Set<String> valueColumns = values(w.payload()).keySet();
    for (Link p : pending) {
      if (p.predecessor() != null
          && p.predecessor().equals(sent.key())
          && difference(p.values(), w.typed(), valueColumns).isEmpty()) {
        return false; // what waits to be sent already brings the provider to these values
      }
    }
    Map<String, Object> delta = difference(sent.values(), w.typed(), valueColumns);
    if (pending.isEmpty() && delta.isEmpty()) {
      return false; // nothing moved since what was sent (a replay of a sent delta's revision)
    }
    for (Link p : pending) {
      overtake(c, p.key(), r.revision());
    }
    if (delta.isEmpty()) {
      return false; // back at what was sent: the overtaken delta is not owed any more
    }
    String predecessor = sent.key();
    String deltaKey = EffectIdentity.deltaKey(w.key(), r.revision());
    Link held = links.get(deltaKey);
    if (held != null
        && !(held.generation() == r.generation() && predecessor.equals(held.predecessor()))) {
      deltaKey = EffectIdentity.deltaKey(w.key(), r.revision(), r.generation(), predecessor);
      held = links.get(deltaKey);
    }
    if (held != null) {
      // the same move as a delta cancelled unsent before: the same key and payload, owed again
      revive(c, deltaKey, r.revision());
      return true;
    }
    Map<String, Object> payload = new LinkedHashMap<>(w.payload());
    payload.put("effect_key", deltaKey);
    payload.put("delta_of", w.key());
    payload.put("predecessor", predecessor);
    payload.put("revision", r.revision());
    payload.put("delta", delta);
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect (effect_key, effect_type, model, logical_window_id,"
                + " subject, generation, made_true_by, revision, provider, payload, payload_digest,"
                + " state, delta_of, predecessor) VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?,"
                + " ?::jsonb, ?, 'PREPARED', ?, ?)")) {
      s.setString(1, deltaKey);
      s.setString(2, w.rule().type());
      s.setString(3, r.model());
      s.setString(4, r.logicalWindowId());
      s.setString(5, RevisionIdentity.canonical(w.subject()));
      s.setInt(6, r.generation());
      s.setInt(7, r.revision());
      s.setInt(8, r.revision());
      s.setString(9, w.rule().provider().describe());
      s.setString(10, RevisionIdentity.canonical(payload));
      s.setString(11, EffectIdentity.payloadDigest(payload));
      s.setString(12, w.key());
      s.setString(13, predecessor);
      s.executeUpdate();
    }
    transition(
        c,
        deltaKey,
        null,
        "PREPARED",
        r.revision(),
        "delta of " + w.key().substring(0, 12) + " after " + predecessor.substring(0, 12));
    return true;
  }

  /** A delta cancelled unsent, owed again for the same move: PREPARED, its payload unchanged. */
  private static void revive(Connection c, String key, int revision) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE streamform.effect SET state = 'PREPARED', prepared_at = now(), updated_at ="
                + " now() WHERE effect_key = ? AND state = 'CANCELLED'")) {
      s.setString(1, key);
      if (s.executeUpdate() != 1) {
        throw new SQLException("effect " + key + " moved under its row lock", "40001");
      }
    }
    transition(c, key, "CANCELLED", "PREPARED", revision, "the same delta owed again");
  }

  /** A delta not yet sent that a newer correction replaces: CANCELLED, nothing was sent. */
  private static void overtake(Connection c, String key, int revision) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE streamform.effect SET state = 'CANCELLED', updated_at = now() WHERE effect_key"
                + " = ? AND state = 'PREPARED'")) {
      s.setString(1, key);
      if (s.executeUpdate() != 1) {
        throw new SQLException("effect " + key + " moved under its row lock", "40001");
      }
    }
    transition(c, key, "PREPARED", "CANCELLED", revision, "overtaken by revision " + revision);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> values(Object payload) {
    Object values = ((Map<String, Object>) payload).get("values");
    return values == null ? Map.of() : (Map<String, Object>) values;
  }

  /**
   * Per numeric value column ({@code typed}: the revision's columns typed by the model's output
   * schema), {@code now - from} where it moved; {@code from} is a payload's values as the ledger's
   * JSON has them (decimals as strings). A whole-number column's delta is a whole number.
   */
  static Map<String, Object> difference(
      Map<String, Object> from, Map<String, Object> typed, java.util.Set<String> valueColumns) {
    Map<String, Object> delta = new java.util.TreeMap<>();
    for (String column : valueColumns) {
      Object now = typed.get(column);
      if (!(now instanceof Number)) {
        continue;
      }
      BigDecimal after = new BigDecimal(now.toString());
      BigDecimal before = decimal(from.get(column));
      BigDecimal d = after.subtract(before == null ? BigDecimal.ZERO : before);
      if (d.signum() != 0) {
        delta.put(
            column,
            now instanceof Long || now instanceof Integer ? (Object) d.longValueExact() : d);
      }
    }
    return delta;
  }

  private static @Nullable BigDecimal decimal(@Nullable Object v) {
    if (v instanceof Number n) {
      return new BigDecimal(n.toString());
    }
    if (v instanceof String text) {
      try {
        return new BigDecimal(text);
      } catch (NumberFormatException notANumber) {
        return null;
      }
    }
    return null;
  }

  private static boolean compensate(Connection c, Wanted w, String state) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect_compensation (effect_key, generation, revision,"
                + " effect_state, reason, payload, payload_digest) VALUES (?, ?, ?, ?, ?, ?::jsonb,"
                + " ?) ON CONFLICT (effect_key, generation, revision) DO NOTHING")) {
      s.setString(1, w.key());
      s.setInt(2, w.revision().generation());
      s.setInt(3, w.revision().revision());
      s.setString(4, state);
      s.setString(5, w.holds() ? "payload_changed" : "rule_false");
      s.setString(6, w.holds() ? RevisionIdentity.canonical(w.payload()) : null);
      s.setString(7, w.holds() ? w.digest() : null);
      return s.executeUpdate() == 1;
    }
  }

  static void transition(
      Connection c,
      String key,
      @Nullable String from,
      String to,
      @Nullable Integer revision,
      String note)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect_transition (effect_key, from_state, to_state, revision,"
                + " note) VALUES (?, ?, ?, ?, ?)")) {
      s.setString(1, key);
      s.setString(2, from);
      s.setString(3, to);
      if (revision == null) {
        s.setNull(4, java.sql.Types.INTEGER);
      } else {
        s.setInt(4, revision);
      }
      s.setString(5, note);
      s.executeUpdate();
    }
  }

  private static Map<String, Object> parse(String json) {
    try {
      return JSON.readValue(json, MAP);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the ledger holds JSON that does not parse: " + json, e);
    }
  }
}
