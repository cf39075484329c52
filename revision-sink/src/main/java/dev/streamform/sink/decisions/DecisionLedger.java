package dev.streamform.sink.decisions;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.decisions.Decision;
import dev.streamform.transforms.decisions.FeatureContract;
import dev.streamform.transforms.decisions.ScoreEvents;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Reads the decision ledger ({@link DecisionLedgerSink} writes it): a model's decisions and its
 * reconcile queue, and {@link #verify} — each decision's identity recomputed from its stored
 * inputs.
 */
public final class DecisionLedger {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper EXACT =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private final DataSource dataSource;

  private DecisionLedger(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** The ledger in {@code dataSource} (migrated by {@code LedgerSchema}). */
  public static DecisionLedger at(DataSource dataSource) {
    return new DecisionLedger(dataSource);
  }

  /** One stored decision: its columns by name, as the database gives them. */
  public record StoredDecision(Map<String, Object> columns) {
    public String decisionId() {
      return (String) columns.get("decision_id");
    }

    public String eventId() {
      return (String) columns.get("event_id");
    }

    public int revision() {
      return ((Number) columns.get("revision")).intValue();
    }

    public @Nullable String supersedes() {
      return (String) columns.get("supersedes");
    }
  }

  /** One late event in the reconcile queue. */
  public record Reconcile(Map<String, Object> columns) {}

  /**
   * How a query picks one event's rows by its id ({@code ?}): by md5, which the indexes hold (an
   * event id may be longer than a btree entry; V180), and by the text itself, so ids of the same
   * md5 stay apart.
   */
  static final String BY_EVENT_ID = " AND md5(event_id) = md5(?) AND event_id = ?";

  /**
   * {@code model}'s decisions (of event {@code eventId} only, when given), by the event's partition
   * and offset, then revision.
   */
  public List<StoredDecision> decisions(String model, @Nullable String eventId)
      throws SQLException {
    String sql =
        "SELECT decision_id, model, event_id, event_partition, event_offset, occurred_at,"
            + " arrived_at, arrival_watermark, scored_at, contract, state_cutoff, state_revision,"
            + " features::text AS features, score, model_digest, preprocessing_digest,"
            + " policy_generation, revision, supersedes, revised_by, key_values::text AS"
            + " key_values, record::text AS record, recorded_at FROM streamform.decision WHERE"
            + " model = ?"
            + (eventId == null ? "" : BY_EVENT_ID)
            + " ORDER BY event_partition, event_offset, revision";
    List<StoredDecision> rows = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, model);
      if (eventId != null) {
        s.setString(2, eventId);
        s.setString(3, eventId);
      }
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          rows.add(new StoredDecision(columns(r)));
        }
      }
      c.commit();
    }
    return rows;
  }

  /**
   * How many of {@code model}'s decisions under {@code generation} another version of the model
   * scored: their model digest is not {@code modelDigest}, or their preprocessing digest is not
   * {@code preprocessingDigest}. A run of the declared version writes its decisions beside them
   * (other digests, other ids), never over them.
   */
  public OtherVersions otherVersions(
      String model, int generation, String modelDigest, String preprocessingDigest)
      throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*), count(*) FILTER (WHERE model_digest <> ?) FROM"
                    + " streamform.decision WHERE model = ? AND policy_generation = ? AND"
                    + " (model_digest <> ? OR preprocessing_digest <> ?)")) {
      s.setString(1, modelDigest);
      s.setString(2, model);
      s.setInt(3, generation);
      s.setString(4, modelDigest);
      s.setString(5, preprocessingDigest);
      OtherVersions found;
      try (ResultSet r = s.executeQuery()) {
        r.next();
        found = new OtherVersions(r.getLong(1), r.getLong(2));
      }
      c.commit();
      return found;
    }
  }

  /**
   * What {@link #otherVersions} found: the decisions another version scored, and how many of them
   * by another model digest (the rest by another preprocessing digest only).
   */
  public record OtherVersions(long decisions, long byAnotherModelDigest) {}

  /** {@code model}'s reconcile queue, by the event's partition and offset. */
  public List<Reconcile> reconcileQueue(String model) throws SQLException {
    List<Reconcile> rows = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT event_id, event_partition, event_offset, occurred_at, arrival_watermark,"
                    + " updated_state, affected_decisions::text AS affected_decisions,"
                    + " key_values::text AS key_values, record::text AS record, queued_at,"
                    + " resolved_at, reason FROM streamform.decision_reconcile WHERE model = ?"
                    + " ORDER BY"
                    + " event_partition, event_offset, queued_at")) {
      s.setString(1, model);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          rows.add(new Reconcile(columns(r)));
        }
      }
      c.commit();
    }
    return rows;
  }

  /**
   * What {@link #verify} found: the decisions checked, every mismatch in words, and the decisions
   * whose score was not recomputed because another model version or preprocessing scored them
   * (their digests are not the declared model's), in words.
   */
  public record Verification(
      int decisions, List<String> problems, List<String> notRescored, List<String> notes) {
    public boolean clean() {
      return problems.isEmpty();
    }
  }

  /**
   * Recomputes each of {@code model}'s decisions' {@code decision_id} from its stored inputs
   * (docs/semantics.md §11: event, partition, offset, occurrence, contract, cutoff, state revision,
   * digests, generation, revision, supersedes) and checks the {@code supersedes} chain: revision 1
   * supersedes nothing, revision n supersedes a decision of the same event with revision n - 1.
   *
   * <p>The identity leaves out features and score, so each decision's score is also recomputed from
   * its stored features and event ({@code record}) with {@code scoring}, the model as declared now
   * ({@link ScoreEvents#scoreOf}), when the decision's model and preprocessing digests are the
   * declared ones; a decision scored by another version is listed as not rescored (ADR 0094).
   * {@code recordSchema} is the source's record schema: the stored record's numeric columns are
   * read back as its types.
   */
  public Verification verify(String model, ScoreEvents scoring, Schema recordSchema)
      throws SQLException {
    List<StoredDecision> all = decisions(model, null);
    String modelDigest = scoring.scorer() == null ? null : scoring.scorer().digest();
    String preprocessingDigest = scoring.preprocessor().digest();
    List<String> notRescored = new ArrayList<>();
    Map<String, StoredDecision> byId = new HashMap<>();
    all.forEach(d -> byId.put(d.decisionId(), d));
    List<String> problems = new ArrayList<>();
    for (StoredDecision d : all) {
      Map<String, Object> c = d.columns();
      String recomputed =
          RevisionIdentity.hash(
              Decision.identityOf(
                  model,
                  d.eventId(),
                  ((Number) c.get("event_partition")).intValue(),
                  ((Number) c.get("event_offset")).longValue(),
                  joda((Instant) c.get("occurred_at")),
                  FeatureContract.valueOf(((String) c.get("contract")).toUpperCase(Locale.ROOT)),
                  joda((Instant) c.get("state_cutoff")),
                  ((Number) c.get("state_revision")).longValue(),
                  (String) c.get("model_digest"),
                  (String) c.get("preprocessing_digest"),
                  ((Number) c.get("policy_generation")).intValue(),
                  d.revision(),
                  d.supersedes()));
      if (!recomputed.equals(d.decisionId())) {
        problems.add(label(d) + ": its stored inputs hash to " + recomputed);
      }
      if (c.get("model_digest").equals(modelDigest)
          && c.get("preprocessing_digest").equals(preprocessingDigest)) {
        Map<String, Double> features = features((String) c.get("features"));
        double stored = ((Number) c.get("score")).doubleValue();
        double rescored = scoring.scoreOf(features, event((String) c.get("record"), recordSchema));
        if (Double.compare(stored, rescored) != 0) {
          problems.add(
              label(d)
                  + ": its stored score "
                  + stored
                  + " is not the score of its stored features "
                  + new TreeMap<>(features)
                  + " and event under model digest "
                  + modelDigest
                  + " (they score "
                  + rescored
                  + ")");
        }
      } else {
        notRescored.add(
            label(d)
                + ": scored by model digest "
                + c.get("model_digest")
                + ", preprocessing digest "
                + c.get("preprocessing_digest")
                + "; the model declared now has "
                + modelDigest
                + ", "
                + preprocessingDigest);
      }
      if (d.supersedes() != null) {
        StoredDecision before = byId.get(d.supersedes());
        if (before == null) {
          problems.add(label(d) + " supersedes " + d.supersedes() + ", which is not in the ledger");
        } else if (!before.eventId().equals(d.eventId()) || before.revision() != d.revision() - 1) {
          problems.add(
              label(d)
                  + " supersedes "
                  + d.supersedes()
                  + " (event "
                  + before.eventId()
                  + ", revision "
                  + before.revision()
                  + "): not its event's previous revision");
        }
      }
    }
    problems.addAll(refusedOutcomes(model, byId));
    return new Verification(all.size(), problems, notRescored, decidedAtSeveralPositions(all));
  }

  /**
   * Each outcome a run offered under a {@code decision_id} the ledger holds with other features or
   * another score ({@code decision_conflict}, ADR 0209), in words: the ledger kept its own.
   */
  private List<String> refusedOutcomes(String model, Map<String, StoredDecision> byId)
      throws SQLException {
    List<String> refused = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT decision_id, features::text, score, refusals, last_refused_at FROM"
                    + " streamform.decision_conflict WHERE model = ? ORDER BY event_partition,"
                    + " event_offset, decision_id, recorded_at")) {
      s.setString(1, model);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          StoredDecision held = byId.get(r.getString(1));
          refused.add(
              (held == null ? "decision " + r.getString(1) : label(held))
                  + ": a run decided it with features "
                  + new TreeMap<>(features(r.getString(2)))
                  + " and score "
                  + r.getDouble(3)
                  + (held == null
                      ? ""
                      : " where the ledger holds "
                          + new TreeMap<>(features((String) held.columns().get("features")))
                          + " and "
                          + held.columns().get("score"))
                  + " ("
                  + r.getLong(4)
                  + (r.getLong(4) == 1 ? " time" : " times")
                  + ", last at "
                  + r.getObject(5, java.time.OffsetDateTime.class).toInstant()
                  + "); the ledger kept its own: a declaration outside the decision's identity"
                  + " changed under its generation");
        }
      }
      c.commit();
    }
    return refused;
  }

  /**
   * Notes, not problems: each event id of a generation whose first revisions stand at more than one
   * source position. Both are valid decisions — a repeat of the id beyond duplicates_within is a
   * new event (docs/decisions/0071) — but a log that changed between runs (a file edited, a topic
   * recreated) gives the same: a second chain of decisions for one event, which nothing else would
   * tell (found by a read-only audit of decisions).
   */
  private static List<String> decidedAtSeveralPositions(List<StoredDecision> all) {
    Map<String, java.util.SortedSet<String>> positions = new TreeMap<>();
    for (StoredDecision d : all) {
      if (d.revision() != 1) {
        continue;
      }
      Map<String, Object> c = d.columns();
      String place = c.get("event_partition") + "-" + c.get("event_offset");
      if (d.eventId().equals(place)) {
        continue; // no declared id: an event is its position
      }
      positions
          .computeIfAbsent(
              "generation " + c.get("policy_generation") + ", event " + d.eventId(),
              k -> new java.util.TreeSet<>())
          .add(place);
    }
    List<String> notes = new ArrayList<>();
    positions.forEach(
        (event, places) -> {
          if (places.size() > 1) {
            notes.add(
                event
                    + " was decided at "
                    + places.size()
                    + " source positions ("
                    + String.join(", ", places)
                    + "): a repeat of its id beyond duplicates_within, decided as a new event, or"
                    + " a log that changed between runs (a file edited, a topic recreated), which"
                    + " leaves two chains of decisions for one event");
          }
        });
    return notes;
  }

  /** How {@link #verify} names a decision: {@code decision <id> (event <event>, revision <n>)}. */
  private static String label(StoredDecision d) {
    return "decision "
        + d.decisionId()
        + " (event "
        + d.eventId()
        + ", revision "
        + d.revision()
        + ")";
  }

  /** A stored {@code features} column: each feature's value as a double. */
  static Map<String, Double> features(String text) {
    Map<String, Double> features = new LinkedHashMap<>();
    json(text).forEach((k, v) -> features.put(k, v == null ? null : ((Number) v).doubleValue()));
    return features;
  }

  /**
   * A stored {@code record} column (DecisionLedgerSink#json) read back as a row of the numeric
   * columns of {@code schema}, by their types: what the declared preprocessor reads of an event
   * (the features, then every numeric column; Preprocessor#featuresAndNumericColumns), in the
   * schema's order. Decimals are read exact.
   */
  static Row event(String text, Schema schema) {
    JsonNode node;
    try {
      node = EXACT.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the ledger holds a record that is not JSON: " + text, e);
    }
    Schema.Builder numeric = Schema.builder();
    List<Object> values = new ArrayList<>();
    for (Schema.Field f : schema.getFields()) {
      Schema.TypeName type = f.getType().getTypeName();
      JsonNode v = node.get(f.getName());
      boolean absent = v == null || v.isNull();
      Object value;
      switch (type) {
        case INT64 -> value = absent ? null : v.longValue();
        case INT32 -> value = absent ? null : v.intValue();
        case INT16 -> value = absent ? null : v.shortValue();
        case BYTE -> value = absent ? null : (byte) v.intValue();
        case DOUBLE -> value = absent ? null : v.doubleValue();
        case FLOAT -> value = absent ? null : v.floatValue();
        case DECIMAL -> value = absent ? null : v.decimalValue();
        default -> {
          continue; // not numeric: the preprocessor reads no other column
        }
      }
      numeric.addField(Schema.Field.nullable(f.getName(), f.getType().withNullable(true)));
      values.add(value);
    }
    return Row.withSchema(numeric.build()).addValues(values).build();
  }

  private static org.joda.time.Instant joda(Instant t) {
    return Times.toJoda(t);
  }

  private static Map<String, Object> columns(ResultSet r) throws SQLException {
    Map<String, Object> m = new LinkedHashMap<>();
    int n = r.getMetaData().getColumnCount();
    for (int i = 1; i <= n; i++) {
      String name = r.getMetaData().getColumnLabel(i);
      Object v = r.getObject(i);
      if (v instanceof Timestamp) {
        // as the column holds it (proleptic Gregorian), not through java.sql.Timestamp's calendar
        v = r.getObject(i, java.time.OffsetDateTime.class).toInstant();
      }
      m.put(name, v);
    }
    return m;
  }

  /** A stored JSON column as a map (features, key values, a record). */
  public static Map<String, Object> json(String text) {
    try {
      JsonNode node = JSON.readTree(text);
      return JSON.convertValue(node, LinkedHashMap.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the ledger holds a column that is not JSON: " + text, e);
    }
  }
}
