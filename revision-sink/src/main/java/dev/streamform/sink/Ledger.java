package dev.streamform.sink;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectSettlement;
import dev.streamform.sink.effects.EffectsPause;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The ledger as its readers and operators see it: a model's windows and their revision histories,
 * the verification of docs/semantics.md §8's invariant (every projection equals a recomputation
 * from its ledger rows; every window's revisions form one chain {@code 1..n}), two generations
 * compared window by window ({@link #compare}), and the canonical alias. Reading never changes
 * anything; {@link #setCanonicalGeneration} only moves the alias (it never deletes a revision).
 */
public final class Ledger {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_LONG_FOR_INTS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
  private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {};

  private final DataSource dataSource;

  private Ledger(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  public static Ledger at(DataSource dataSource) {
    return new Ledger(dataSource);
  }

  /** True when the database holds a Streamform ledger (its schema was migrated). */
  public boolean exists() throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT to_regclass('streamform.projection') IS NOT NULL");
        ResultSet rs = s.executeQuery()) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  /**
   * The partition count recorded for a generation's source, refused as another: {@code recorded}
   * partitions since {@code recordedAt}, with {@code projections} published under them.
   */
  public record RecordedPartitions(int recorded, Instant recordedAt, long projections) {}

  /**
   * Records that generation {@code generation} of {@code model} reads {@code source} with {@code
   * partitions} partitions (docs/semantics.md §9.6). A different count already recorded is replaced
   * while the generation has published nothing; once it has, the count is refused: the record is
   * returned and nothing changes.
   */
  public Optional<RecordedPartitions> recordPartitions(
      String model, int generation, String source, int partitions) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement s =
            c.prepareStatement(
                "SELECT partitions, recorded_at FROM streamform.generation_partitions"
                    + " WHERE model = ? AND generation = ? AND source = ? FOR UPDATE")) {
          s.setString(1, model);
          s.setInt(2, generation);
          s.setString(3, source);
          try (ResultSet rs = s.executeQuery()) {
            if (rs.next() && rs.getInt(1) != partitions) {
              long published = projections(c, model, generation);
              if (published > 0) {
                RecordedPartitions refused =
                    new RecordedPartitions(rs.getInt(1), rs.getTimestamp(2).toInstant(), published);
                c.rollback();
                return Optional.of(refused);
              }
            }
          }
        }
        try (PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO streamform.generation_partitions (model, generation, source,"
                    + " partitions) VALUES (?, ?, ?, ?) ON CONFLICT (model, generation, source)"
                    + " DO UPDATE SET partitions = excluded.partitions, recorded_at = now()"
                    + " WHERE generation_partitions.partitions <> excluded.partitions")) {
          s.setString(1, model);
          s.setInt(2, generation);
          s.setString(3, source);
          s.setInt(4, partitions);
          s.executeUpdate();
        }
        c.commit();
        return Optional.empty();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /**
   * The time policy recorded for a generation, as {@link #recordPolicy} stored it: the policy's
   * canonical JSON and digest, when it was recorded, and what the generation has published under it
   * — projections (a windowed model's revision ledger) and decisions (a scoring model's decision
   * ledger, by {@code policy_generation}; docs/decisions/0145).
   */
  public record RecordedPolicy(
      String policy, String digest, Instant recordedAt, long projections, long decisions) {
    /** Whether the generation has published anything: a projection or a decision. */
    public boolean published() {
      return projections > 0 || decisions > 0;
    }
  }

  /**
   * What the ledger recorded as generation {@code generation}'s time policy (docs/decisions/0141,
   * 0145: windowed and scoring models alike); empty when nothing was (a generation never run, or a
   * ledger written before policies were recorded).
   */
  public Optional<RecordedPolicy> recordedPolicy(String model, int generation) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT policy, policy_digest, recorded_at FROM streamform.generation_policy"
                    + " WHERE model = ? AND generation = ?")) {
      s.setString(1, model);
      s.setInt(2, generation);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new RecordedPolicy(
                rs.getString(1),
                rs.getString(2),
                rs.getTimestamp(3).toInstant(),
                projections(c, model, generation),
                decisions(c, model, generation)));
      }
    }
  }

  /**
   * Records {@code policy} (canonical JSON, with its {@code digest}) as generation {@code
   * generation}'s time policy: the first record stays, unless {@code replace} (the caller found the
   * generation has published nothing under the recorded one). Returns whether a row was written.
   */
  public boolean recordPolicy(
      String model, int generation, String policy, String digest, boolean replace)
      throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO streamform.generation_policy (model, generation, policy,"
                    + " policy_digest) VALUES (?, ?, ?, ?) ON CONFLICT (model, generation) "
                    + (replace
                        ? "DO UPDATE SET policy = excluded.policy, policy_digest ="
                            + " excluded.policy_digest, recorded_at = now() WHERE"
                            + " generation_policy.policy_digest <> excluded.policy_digest"
                        : "DO NOTHING"))) {
      s.setString(1, model);
      s.setInt(2, generation);
      s.setString(3, policy);
      s.setString(4, digest);
      boolean written = s.executeUpdate() > 0;
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return written;
    }
  }

  /**
   * The highest generation of {@code model} the ledger knows of (projections, decisions or
   * policies).
   */
  public OptionalInt latestGeneration(String model) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT max(g) FROM (SELECT max(generation) AS g FROM streamform.projection WHERE"
                    + " model = ? UNION ALL SELECT max(policy_generation) FROM"
                    + " streamform.decision WHERE model = ? UNION ALL SELECT max(generation) FROM"
                    + " streamform.generation_policy WHERE model = ?) AS known")) {
      s.setString(1, model);
      s.setString(2, model);
      s.setString(3, model);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        int g = rs.getInt(1);
        return rs.wasNull() ? OptionalInt.empty() : OptionalInt.of(g);
      }
    }
  }

  private static long projections(Connection c, String model, int generation) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT count(*) FROM streamform.projection WHERE model = ? AND generation = ?")) {
      s.setString(1, model);
      s.setInt(2, generation);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static long decisions(Connection c, String model, int generation) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT count(*) FROM streamform.decision WHERE model = ? AND policy_generation = ?")) {
      s.setString(1, model);
      s.setInt(2, generation);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The model's canonical (approved) generation, if it has one. */
  public OptionalInt canonicalGeneration(String model) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return canonicalGeneration(c, model, false);
    }
  }

  private static OptionalInt canonicalGeneration(Connection c, String model, boolean forUpdate)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT generation FROM streamform.canonical_alias WHERE model = ?"
                + (forUpdate ? " FOR UPDATE" : ""))) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? OptionalInt.of(rs.getInt(1)) : OptionalInt.empty();
      }
    }
  }

  /**
   * What {@link #setCanonicalGeneration} did.
   *
   * @param previous the generation that was canonical before, if any
   * @param projections how many projections the new canonical generation has
   * @param previousProjections how many projections the previous generation has (kept: 0 without
   *     one)
   * @param pause what pausing the effects did, when the request paused them
   * @param effects what evaluating the effect rules on the newly canonical values did (all 0 when
   *     the request named no rules)
   * @param canary the canary share now in force, when the request set one ({@code generation} is
   *     then the canary's; {@code previous} stays canonical for the other keys)
   * @param keys with a canary: the model's keys (of any generation); else 0
   * @param canaryKeys with a canary: how many of them are in the share
   * @param endedCanary the canary that was in force before and that this change ended (replaced by
   *     another generation's, or by one generation for every key)
   */
  public record AliasChange(
      String model,
      OptionalInt previous,
      int generation,
      int projections,
      int previousProjections,
      Optional<EffectsPause.Change> pause,
      LedgerWriter.Effects effects,
      Optional<CanaryShare> canary,
      int keys,
      int canaryKeys,
      Optional<CanaryShare> endedCanary) {}

  /**
   * {@link #setCanonicalGeneration(AliasRequest)} refused a canary share: the model has no
   * canonical generation for the other keys to read, or the canary generation is that one.
   */
  public static final class CanaryRefused extends Exception {
    CanaryRefused(String message) {
      super(message);
    }
  }

  /** The model's canary share, while one is in force. */
  public Optional<CanaryShare> canary(String model) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return canary(c, model);
    }
  }

  private static Optional<CanaryShare> canary(Connection c, String model) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT canary_generation, canary_basis_points FROM streamform.canonical_alias"
                + " WHERE model = ? AND canary_generation IS NOT NULL")) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next()
            ? Optional.of(new CanaryShare(rs.getInt(1), rs.getInt(2)))
            : Optional.empty();
      }
    }
  }

  /** {@link #setCanonicalGeneration} refused: the generation has no projection of the model. */
  public static final class EmptyGeneration extends Exception {
    private final SortedMap<Integer, Integer> generations;

    EmptyGeneration(String model, int generation, SortedMap<Integer, Integer> generations) {
      super(
          "generation "
              + generation
              + " of "
              + model
              + " has no projection"
              + (generations.isEmpty()
                  ? " (no generation has any yet)"
                  : "; projections per generation: "
                      + generations.entrySet().stream()
                          .map(e -> e.getKey() + ": " + e.getValue())
                          .collect(Collectors.joining(", "))));
      this.generations = generations;
    }

    /** Projections per generation of the model, as the refusal found them. */
    public SortedMap<Integer, Integer> generations() {
      return generations;
    }
  }

  /**
   * Makes {@code generation} the model's canonical one (promotion or rollback): the canonical view
   * shows that generation's projections from now on. Recorded in {@code canonical_alias_history};
   * no projection or revision is touched, of either generation. Refused when the generation has no
   * projection (the canonical view would go empty); see {@link #setCanonicalGeneration(String, int,
   * boolean)}.
   */
  public AliasChange setCanonicalGeneration(String model, int generation)
      throws SQLException, EmptyGeneration {
    return setCanonicalGeneration(model, generation, false);
  }

  /**
   * As {@link #setCanonicalGeneration(String, int)}; with {@code allowEmpty}, also to a generation
   * that has no projection yet (the canonical view shows nothing of the model until a job of that
   * generation writes).
   *
   * @throws EmptyGeneration when the generation has no projection and {@code allowEmpty} is false;
   *     the alias did not move
   */
  public AliasChange setCanonicalGeneration(String model, int generation, boolean allowEmpty)
      throws SQLException, EmptyGeneration {
    try {
      return setCanonicalGeneration(AliasRequest.of(model, generation).withAllowEmpty(allowEmpty));
    } catch (CanaryRefused e) {
      throw new IllegalStateException("no share was asked for, yet a canary was refused", e);
    }
  }

  /**
   * Moves the alias as {@code request} says, in one transaction with what it asks besides: the
   * model's effects paused, and its effect rules evaluated on every window's newly canonical values
   * (docs/semantics.md §10.11, through the same outbox as the revision sink): a rule now true with
   * no effect prepares one; a PREPARED effect follows the new generation's revision, or is
   * CANCELLED when its rule is now false; an effect already dispatched whose rule is now false (or
   * whose payload changed) gets a compensation record, never a second effect. A window the new
   * generation has no projection of is left as it is: its job has not computed it yet, and will
   * prepare or compensate when it writes it.
   *
   * <p>With a share ({@link AliasRequest#withShare}), the generation becomes a canary: the keys in
   * the share ({@link CanaryShare}) read it and the others keep the generation canonical now; the
   * canonical view and the effects resolve per key. Without one, every key reads the generation and
   * any canary ends.
   *
   * @throws EmptyGeneration when the generation has no projection and the request does not allow
   *     it; nothing changed
   * @throws CanaryRefused when a share is asked for and there is no other canonical generation for
   *     the other keys; nothing changed
   */
  public AliasChange setCanonicalGeneration(AliasRequest request)
      throws SQLException, EmptyGeneration, CanaryRefused {
    try {
      return setCanonicalGenerationOnce(request);
    } catch (AliasAppeared e) {
      // the model had no alias when this transaction read it, and another transaction (an alias
      // set, a first write) made one before this one's upsert: everything read before the upsert
      // is stale, so it was all rolled back; now the row exists and the read locks it
      try {
        return setCanonicalGenerationOnce(request);
      } catch (AliasAppeared again) {
        throw new IllegalStateException(
            request.model() + "'s alias row appeared twice while it was set", again);
      }
    }
  }

  /**
   * Another transaction made the model's alias between this one's read (nothing to lock yet) and
   * its upsert, which then updated that row instead of inserting: {@code previous} would be wrong
   * in the history and the answer (ADR 0211).
   */
  private static final class AliasAppeared extends Exception {
    private static final long serialVersionUID = 1L;

    AliasAppeared() {
      super(null, null, false, false);
    }
  }

  private AliasChange setCanonicalGenerationOnce(AliasRequest request)
      throws SQLException, EmptyGeneration, CanaryRefused, AliasAppeared {
    String model = request.model();
    int generation = request.generation();
    boolean allowEmpty = request.allowEmpty();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        OptionalInt previous = canonicalGeneration(c, model, true);
        Optional<CanaryShare> before = canary(c, model);
        SortedMap<Integer, Integer> counts = generations(c, model);
        int projections = counts.getOrDefault(generation, 0);
        if (projections == 0 && !allowEmpty) {
          throw new EmptyGeneration(model, generation, counts);
        }
        Optional<CanaryShare> canary = Optional.empty();
        int base = generation;
        if (request.shareBasisPoints().isPresent()) {
          if (previous.isEmpty()) {
            throw new CanaryRefused(
                model
                    + " has no canonical generation yet, so the keys outside the share would"
                    + " read nothing; make one canonical first");
          }
          if (previous.getAsInt() == generation) {
            throw new CanaryRefused(
                "generation "
                    + generation
                    + " is "
                    + model
                    + "'s canonical generation: a canary shares keys with another generation");
          }
          canary = Optional.of(new CanaryShare(generation, request.shareBasisPoints().getAsInt()));
          base = previous.getAsInt();
        }
        Integer canaryGeneration = canary.map(CanaryShare::generation).orElse(null);
        Integer canaryShare = canary.map(CanaryShare::basisPoints).orElse(null);
        long version;
        try (PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO streamform.canonical_alias (model, generation, set_by,"
                    + " canary_generation, canary_basis_points) VALUES (?, ?, 'alias set', ?, ?)"
                    + " ON CONFLICT (model) DO UPDATE SET generation = EXCLUDED.generation,"
                    + " set_at = now(), set_by = EXCLUDED.set_by, canary_generation ="
                    + " EXCLUDED.canary_generation, canary_basis_points ="
                    + " EXCLUDED.canary_basis_points, version = canonical_alias.version + 1"
                    // the version a claim records of the alias it read (ADR 0161)
                    + " RETURNING version")) {
          s.setString(1, model);
          s.setInt(2, base);
          s.setObject(3, canaryGeneration, java.sql.Types.INTEGER);
          s.setObject(4, canaryShare, java.sql.Types.INTEGER);
          try (ResultSet rs = s.executeQuery()) {
            rs.next();
            version = rs.getLong(1);
          }
        }
        if (previous.isEmpty() && version != 1) {
          throw new AliasAppeared();
        }
        try (PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO streamform.canonical_alias_history (model, generation,"
                    + " previous_generation, set_by, canary_generation, canary_basis_points,"
                    + " version) VALUES (?, ?, ?, 'alias set', ?, ?, ?)")) {
          s.setString(1, model);
          s.setInt(2, base);
          s.setObject(3, previous.isPresent() ? previous.getAsInt() : null, java.sql.Types.INTEGER);
          s.setObject(4, canaryGeneration, java.sql.Types.INTEGER);
          s.setObject(5, canaryShare, java.sql.Types.INTEGER);
          s.setLong(6, version);
          s.executeUpdate();
        }
        int[] keys = canary.isPresent() ? keys(c, model, canary.get()) : new int[2];
        Optional<EffectsPause.Change> pause = Optional.empty();
        if (request.pausedBy().isPresent()) {
          pause =
              Optional.of(
                  EffectsPause.pause(c, model, request.pausedBy().get(), request.pauseReason()));
        }
        LedgerWriter.Effects effects = LedgerWriter.Effects.NONE;
        if (!request.rules().isEmpty()) {
          effects = followCanonical(c, request);
        }
        c.commit();
        int previousProjections =
            previous.isPresent() ? counts.getOrDefault(previous.getAsInt(), 0) : 0;
        int canaryNow = canary.map(CanaryShare::generation).orElse(-1);
        Optional<CanaryShare> ended = before.filter(b -> canaryNow != b.generation());
        return new AliasChange(
            model,
            previous,
            generation,
            projections,
            previousProjections,
            pause,
            effects,
            canary,
            keys[0],
            keys[1],
            ended);
      } catch (SQLException
          | RuntimeException
          | EmptyGeneration
          | CanaryRefused
          | AliasAppeared e) {
        c.rollback();
        throw e;
      }
    }
  }

  /**
   * The model's keys as {@code share} divides them.
   *
   * @param keys the model's keys (of any generation)
   * @param inShare how many of them are in the share
   * @param withoutProjection how many of those have no projection of the share's generation: the
   *     canonical view shows nothing of them until a job of that generation writes them
   * @param example one of those, as PostgreSQL prints it as jsonb
   */
  public record ShareKeys(int keys, int inShare, int withoutProjection, Optional<String> example) {}

  /** How {@code share} divides {@code model}'s keys (docs/semantics.md §9.9). */
  public ShareKeys shareKeys(String model, CanaryShare share) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*), count(*) FILTER (WHERE b), count(*) FILTER (WHERE b AND NOT"
                    + " has), min(k::text) FILTER (WHERE b AND NOT has) FROM (SELECT k,"
                    + " streamform.key_bucket(k) < ? AS b, EXISTS (SELECT 1 FROM"
                    + " streamform.projection q WHERE q.model = ? AND q.generation = ? AND"
                    + " q.window_key = k) AS has FROM (SELECT DISTINCT window_key AS k FROM"
                    + " streamform.projection WHERE model = ?) d) x")) {
      s.setInt(1, share.basisPoints());
      s.setString(2, model);
      s.setInt(3, share.generation());
      s.setString(4, model);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return new ShareKeys(
            rs.getInt(1), rs.getInt(2), rs.getInt(3), Optional.ofNullable(rs.getString(4)));
      }
    }
  }

  /** {the model's keys, those in the canary's share}. */
  private static int[] keys(Connection c, String model, CanaryShare canary) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT count(*), count(*) FILTER (WHERE streamform.key_bucket(k) < ?) FROM (SELECT"
                + " DISTINCT window_key AS k FROM streamform.projection WHERE model = ?) keys")) {
      s.setInt(1, canary.basisPoints());
      s.setString(2, model);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return new int[] {rs.getInt(1), rs.getInt(2)};
      }
    }
  }

  /**
   * What {@code rules} would do to the effect ledger if they were evaluated now on every window of
   * {@code model}'s canonical values, as {@link #setCanonicalGeneration} evaluates them when the
   * alias moves — evaluated in a transaction that is rolled back, so nothing changes. All 0 when
   * the effects of the canonical values are those the rules give: every window was evaluated under
   * these rules when it was written or promoted. Otherwise the rules were added or changed after
   * those windows were written, and a run, which evaluates only the revisions it writes, leaves
   * them as they are (docs/decisions/0149). {@code outputSchema} types the stored values.
   */
  public LedgerWriter.Effects effectsNotEvaluated(
      String model,
      int canonicalGeneration,
      List<EffectRule> rules,
      org.apache.beam.sdk.schemas.Schema outputSchema)
      throws SQLException {
    if (rules.isEmpty()) {
      return LedgerWriter.Effects.NONE;
    }
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        return followCanonical(
            c, AliasRequest.of(model, canonicalGeneration).withEffects(rules, outputSchema));
      } finally {
        c.rollback();
      }
    }
  }

  /**
   * The effect rules evaluated on each window of the canonical view, in {@code c}'s transaction.
   */
  private static LedgerWriter.Effects followCanonical(Connection c, AliasRequest request)
      throws SQLException {
    EffectOutbox.Outcome fx =
        followCanonical(
            c,
            request.model(),
            null,
            request.rules(),
            Objects.requireNonNull(request.outputSchema()));
    return new LedgerWriter.Effects(
        fx.prepared(), fx.updated(), fx.cancelled(), fx.compensations(), fx.ruleErrors());
  }

  /**
   * The re-evaluation of {@link #setCanonicalGeneration(AliasRequest)}, for one effect a person has
   * just made PREPARED again ({@code streamform effects settle --not-applied}, ADR 0140): its rule
   * (of {@code rules}, the model's declared effects) evaluated on its window's canonical values
   * now, through the same outbox, in the settlement's transaction. Still true: it follows the
   * canonical revision and stays PREPARED; false: CANCELLED. A window with no canonical projection,
   * or an effect type no rule declares any more, leaves the effect as it is.
   */
  public static EffectSettlement.Reevaluation reevaluation(
      List<EffectRule> rules, org.apache.beam.sdk.schemas.Schema outputSchema) {
    List<EffectRule> declared = List.copyOf(rules);
    Objects.requireNonNull(outputSchema, "outputSchema");
    return (c, effectKey) -> {
      String model;
      String type;
      String window;
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT model, effect_type, logical_window_id FROM streamform.effect WHERE"
                  + " effect_key = ?")) {
        s.setString(1, effectKey);
        try (ResultSet rs = s.executeQuery()) {
          if (!rs.next()) {
            return;
          }
          model = rs.getString(1);
          type = rs.getString(2);
          window = rs.getString(3);
        }
      }
      List<EffectRule> its =
          declared.stream().filter(r -> r.model().equals(model) && r.type().equals(type)).toList();
      if (!its.isEmpty()) {
        followCanonical(c, model, window, its, outputSchema);
      }
    };
  }

  /**
   * {@code rules} evaluated on each window of {@code model}'s canonical view (only {@code window},
   * when given), in {@code c}'s transaction.
   */
  private static EffectOutbox.Outcome followCanonical(
      Connection c,
      String model,
      @Nullable String window,
      List<EffectRule> rules,
      org.apache.beam.sdk.schemas.Schema outputSchema)
      throws SQLException {
    List<StoredRevision> canonical = new ArrayList<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT projection_id, model, logical_window_id, generation, window_key::text,"
                + " window_start, window_end, revision, status, aggregate_values::text,"
                + " aggregate_digest FROM streamform.canonical_projection WHERE model = ?"
                + " AND (?::text IS NULL OR logical_window_id = ?) ORDER BY projection_id")) {
      s.setString(1, model);
      s.setString(2, window);
      s.setString(3, window);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          int revision = rs.getInt(8);
          canonical.add(
              new StoredRevision(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getInt(4),
                  rs.getString(5),
                  instant(rs, 6),
                  instant(rs, 7),
                  revision,
                  revision > 1 ? revision - 1 : null,
                  rs.getString(9),
                  rs.getString(10),
                  rs.getString(11),
                  "{}"));
        }
      }
    }
    // the project declares one output schema; every generation's stored values are typed by it
    Map<String, org.apache.beam.sdk.schemas.Schema> schemas = new java.util.HashMap<>();
    for (StoredRevision r : canonical) {
      schemas.put(EffectOutbox.schemaKey(r.model(), r.generation()), outputSchema);
    }
    return new EffectOutbox(rules).apply(c, canonical, schemas, Map.of());
  }

  /**
   * How many conflicts of {@code model}'s generation {@code generation} the run {@code runId}
   * refused ({@link LedgerWriter#forRun}): the ones it recorded and the ones an earlier run
   * recorded that it offered again, each once however often it offered them (docs/decisions/0040,
   * 0114). What another run refused, before or while this one ran, is not counted.
   */
  public long conflictsRefusedBy(String model, int generation, String runId) throws SQLException {
    return refusedBy(model, generation, runId, "");
  }

  /** The conflicts of the run whose reason holds {@code reasonPart} ("" holds every one). */
  private long refusedBy(String model, int generation, String runId, String reasonPart)
      throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*) FROM streamform.revision_conflict_refusal r JOIN"
                    + " streamform.revision_conflict k USING (conflict_id) WHERE r.run_id = ? AND"
                    + " k.model = ? AND k.generation = ? AND strpos(k.reason, ?) > 0")) {
      s.setString(1, runId);
      s.setString(2, model);
      s.setInt(3, generation);
      s.setString(4, reasonPart);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * The reason a revision is refused when the projection has passed it but its ledger row is
   * missing: a damaged ledger (rows deleted outside Streamform), not other values offered.
   */
  static String missingRow(int current, int revision) {
    return "the projection is at revision " + current + MISSING_ROW + revision;
  }

  private static final String MISSING_ROW = " but the ledger has no revision ";

  /**
   * Of the {@link #conflictsRefusedBy conflicts the run refused}, how many were refused because the
   * ledger lacks the row of a revision its projection has passed ({@link #missingRow}).
   */
  public long missingRowsRefusedBy(String model, int generation, String runId) throws SQLException {
    return refusedBy(model, generation, runId, MISSING_ROW);
  }

  /** The model's generations that have projections, each with how many. */
  public SortedMap<Integer, Integer> generations(String model) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return generations(c, model);
    }
  }

  private static SortedMap<Integer, Integer> generations(Connection c, String model)
      throws SQLException {
    SortedMap<Integer, Integer> out = new TreeMap<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT generation, count(*) FROM streamform.projection WHERE model = ? GROUP BY"
                + " generation")) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getInt(1), rs.getInt(2));
        }
      }
    }
    return out;
  }

  /**
   * Generation {@code from} (A) and generation {@code to} (B) of {@code model} compared window by
   * window on their projections' current values, read in one snapshot ({@link
   * GenerationComparison}). A generation without projections gives an empty side; callers that want
   * to refuse an unknown generation check {@link #generations} first.
   */
  public GenerationComparison compare(String model, int from, int to) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      c.setReadOnly(true);
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      try (PreparedStatement s =
          c.prepareStatement(
              // matched by key and bounds, not by logical_window_id: a generation that places
              // its calendar windows in another zone hashes another id for the same window
              "SELECT coalesce(a.logical_window_id, b.logical_window_id),"
                  + " coalesce(a.window_key, b.window_key)::text,"
                  + " coalesce(a.window_start, b.window_start), coalesce(a.window_end,"
                  + " b.window_end), a.revision, a.status, a.aggregate_values::text,"
                  + " a.aggregate_digest, b.revision, b.status, b.aggregate_values::text,"
                  + " b.aggregate_digest, streamform.key_bucket(coalesce(a.window_key,"
                  + " b.window_key)) FROM (SELECT * FROM streamform.projection WHERE model = ?"
                  + " AND generation = ?) a FULL OUTER JOIN (SELECT * FROM streamform.projection"
                  + " WHERE model = ? AND generation = ?) b ON a.window_key = b.window_key AND"
                  + " a.window_start = b.window_start AND a.window_end = b.window_end")) {
        Optional<CanaryShare> canary = canary(c, model);
        s.setString(1, model);
        s.setInt(2, from);
        s.setString(3, model);
        s.setInt(4, to);
        List<GenerationComparison.Window> windows = new ArrayList<>();
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            windows.add(
                new GenerationComparison.Window(
                    rs.getString(1),
                    json(rs.getString(2)),
                    instant(rs, 3),
                    instant(rs, 4),
                    side(rs, 5),
                    side(rs, 9),
                    canary.isPresent() && canary.get().covers(rs.getInt(13))));
          }
        }
        windows.sort(
            java.util.Comparator.comparing(GenerationComparison.Window::windowStart)
                .thenComparing(GenerationComparison.Window::key, Ledger::byKeyValue)
                .thenComparing(w -> RevisionIdentity.canonical(w.key()))
                .thenComparing(GenerationComparison.Window::windowEnd));
        return new GenerationComparison(model, from, to, List.copyOf(windows), canary);
      } finally {
        c.rollback();
      }
    }
  }

  /**
   * The projection in columns {@code at..at+3} (revision, status, values, digest), if the row has
   * one.
   */
  private static Optional<GenerationComparison.Side> side(ResultSet rs, int at)
      throws SQLException {
    if (rs.getObject(at) == null) {
      return Optional.empty();
    }
    return Optional.of(
        new GenerationComparison.Side(
            rs.getInt(at), rs.getString(at + 1), json(rs.getString(at + 2)), rs.getString(at + 3)));
  }

  /**
   * Which windows {@link #history} returns: key columns equal to values, a window start, a
   * generation.
   */
  public record Filter(
      Map<String, String> keyEquals, @Nullable Instant windowStart, @Nullable Integer generation) {
    public static Filter all() {
      return new Filter(Map.of(), null, null);
    }
  }

  /**
   * The windows of {@code model} that match {@code filter}, ordered by window start, key and
   * generation, each with its whole history. Windows known only from held revisions are included.
   */
  public List<WindowHistory> history(String model, Filter filter) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      // one snapshot for every query below, so the figures agree with each other
      c.setAutoCommit(false);
      c.setReadOnly(true);
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      try {
        Set<String> canonical = canonicalProjections(c, model);
        Map<String, Window> windows = new LinkedHashMap<>();
        readWindows(c, model, filter, "streamform.projection", windows);
        readWindows(c, model, filter, "streamform.held_revision", windows);
        readLedger(c, model, filter, windows);
        readHeld(c, model, filter, windows);
        readConflicts(c, model, filter, windows);
        List<WindowHistory> out = new ArrayList<>();
        for (Window w : windows.values()) {
          out.add(w.toHistory(canonical.contains(w.projectionId)));
        }
        out.sort(
            java.util.Comparator.comparing(WindowHistory::windowStart)
                .thenComparing(h -> RevisionIdentity.canonical(h.key()))
                .thenComparingInt(WindowHistory::generation));
        return out;
      } finally {
        c.rollback();
      }
    }
  }

  /**
   * The projections the canonical view shows for {@code model}: of its canonical generation, or of
   * the canary's for a key in its share.
   */
  private static Set<String> canonicalProjections(Connection c, String model) throws SQLException {
    Set<String> out = new java.util.HashSet<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT projection_id FROM streamform.canonical_projection WHERE model = ?")) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  /** The number of refused records recorded for {@code model} (of {@code generation} if given). */
  private int conflictCount(String model, @Nullable Integer generation) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*) FROM streamform.revision_conflict WHERE model = ?"
                    + (generation == null ? "" : " AND generation = ?"))) {
      s.setString(1, model);
      if (generation != null) {
        s.setInt(2, generation);
      }
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /**
   * Checks docs/semantics.md §8's invariant for every window of {@code model}, every generation:
   * the ledger rows of a projection form one chain {@code 1..n} (gaps), each ledger row's digest is
   * the hash of its values, the projection is the ledger's row {@code n} (values, digest, status),
   * and its identity hashes recompute (mismatches); refused records count as conflicts.
   */
  public LedgerVerification verify(String model) throws SQLException {
    return verify(model, null);
  }

  /**
   * As {@link #verify(String)} for a model of calendar windows in {@code timeZone} (its IANA name,
   * part of their {@code logical_window_id}, docs/semantics.md §6.24); null for fixed windows.
   */
  public LedgerVerification verify(String model, @Nullable String timeZone) throws SQLException {
    return verify(model, timeZone, null);
  }

  /**
   * As {@link #verify(String, String)} for the projections of one {@code generation} only (every
   * generation when null), and the refused records offered for it: what {@code streamform gates}
   * measures of the generation it gates.
   */
  public LedgerVerification verify(
      String model, @Nullable String timeZone, @Nullable Integer generation) throws SQLException {
    return verify(model, g -> Optional.ofNullable(timeZone), generation);
  }

  /**
   * As {@link #verify(String, String, Integer)} with the zone of each generation's calendar windows
   * given per generation ({@code zoneOf}; empty for fixed windows): a new generation may place its
   * windows' midnights in another zone, or turn fixed windows into calendar ones (docs/semantics.md
   * §9), and each projection's identity hashes the zone of the generation that wrote it.
   */
  public LedgerVerification verify(
      String model, IntFunction<Optional<String>> zoneOf, @Nullable Integer generation)
      throws SQLException {
    List<WindowHistory> windows = history(model, new Filter(Map.of(), null, generation));
    Map<Integer, Optional<String>> zones = new HashMap<>();
    int projections = 0;
    int revisions = 0;
    int gaps = 0;
    int mismatches = 0;
    int held = 0;
    List<String> defects = new ArrayList<>();
    for (WindowHistory w : windows) {
      String at = label(w);
      revisions += w.ledger().size();
      held += w.held().size();
      Map<Integer, WindowHistory.LedgerRow> byRevision = new LinkedHashMap<>();
      for (WindowHistory.LedgerRow r : w.ledger()) {
        byRevision.put(r.revision(), r);
      }
      Set<Integer> heldRevisions = new TreeSet<>();
      for (WindowHistory.HeldRow h : w.held()) {
        if (!h.isFinal()) {
          heldRevisions.add(h.revision());
        }
      }
      int current = w.current().map(WindowHistory.Current::revision).orElse(0);
      int top = current;
      for (int n : byRevision.keySet()) {
        top = Math.max(top, n);
      }
      for (int n : heldRevisions) {
        top = Math.max(top, n);
      }
      for (int n = 1; n <= top; n++) {
        if (!byRevision.containsKey(n) && !heldRevisions.contains(n)) {
          gaps++;
          defects.add(
              "gap: "
                  + at
                  + ": revision "
                  + n
                  + " is missing"
                  + (heldRevisions.isEmpty() ? "" : " (held: " + heldRevisions + ")"));
        }
      }
      for (int n : heldRevisions) {
        if (n == current + 1) {
          mismatches++;
          defects.add(
              "mismatch: "
                  + at
                  + ": revision "
                  + n
                  + " is held although revision "
                  + current
                  + " is applied");
        }
      }
      for (WindowHistory.LedgerRow r : w.ledger()) {
        Integer expected = r.revision() > 1 ? r.revision() - 1 : null;
        if (!Objects.equals(r.predecessor(), expected)) {
          mismatches++;
          defects.add(
              "mismatch: "
                  + at
                  + ": revision "
                  + r.revision()
                  + " names predecessor "
                  + r.predecessor());
        }
        String recomputed = RevisionIdentity.aggregateDigest(r.values());
        if (!recomputed.equals(r.digest())) {
          mismatches++;
          defects.add(
              "mismatch: "
                  + at
                  + ": ledger revision "
                  + r.revision()
                  + " has digest "
                  + shortId(r.digest())
                  + " but its values "
                  + RevisionIdentity.canonical(r.values())
                  + " hash to "
                  + shortId(recomputed));
        }
      }
      if (w.current().isEmpty()) {
        continue;
      }
      projections++;
      WindowHistory.Current p = w.current().get();
      int last = byRevision.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
      if (last != p.revision()) {
        mismatches++;
        defects.add(
            "mismatch: "
                + at
                + ": the projection is at revision "
                + p.revision()
                + " but its ledger ends at revision "
                + last);
      }
      WindowHistory.LedgerRow row = byRevision.get(p.revision());
      if (row != null) {
        if (!RevisionIdentity.canonical(row.values()).equals(RevisionIdentity.canonical(p.values()))
            || !row.digest().equals(p.digest())) {
          mismatches++;
          defects.add(
              "mismatch: "
                  + at
                  + ": the projection's values "
                  + RevisionIdentity.canonical(p.values())
                  + " are not ledger revision "
                  + p.revision()
                  + "'s "
                  + RevisionIdentity.canonical(row.values()));
        }
        if (!p.status().equals(row.status()) && !p.status().equals(StoredRevision.FINAL)) {
          mismatches++;
          defects.add(
              "mismatch: "
                  + at
                  + ": the projection's status "
                  + p.status()
                  + " is not ledger revision "
                  + p.revision()
                  + "'s "
                  + row.status());
        }
      }
      if (!RevisionIdentity.aggregateDigest(p.values()).equals(p.digest())) {
        mismatches++;
        defects.add(
            "mismatch: "
                + at
                + ": the projection's digest "
                + shortId(p.digest())
                + " is not the hash of its values "
                + RevisionIdentity.canonical(p.values()));
      }
      String timeZone = zones.computeIfAbsent(w.generation(), zoneOf::apply).orElse(null);
      String logical =
          RevisionIdentity.logicalWindowId(
              w.model(), w.key(), w.windowStart(), w.windowEnd(), timeZone);
      if (!logical.equals(w.logicalWindowId())
          || !RevisionIdentity.projectionId(logical, w.generation()).equals(w.projectionId())) {
        mismatches++;
        defects.add(
            "mismatch: "
                + at
                + ": logical_window_id or projection_id is not the hash of"
                + " model, key, window"
                + (timeZone == null ? "" : ", time zone")
                + " and generation");
      }
    }
    // ledger rows whose projection row is gone (deleted behind the foreign key by a superuser):
    // the join that reads windows cannot see them, and nothing names their model any more
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT l.projection_id, min(l.revision), max(l.revision), count(*) FROM"
                    + " streamform.correction_ledger l WHERE NOT EXISTS (SELECT 1 FROM"
                    + " streamform.projection p WHERE p.projection_id = l.projection_id) GROUP BY"
                    + " l.projection_id ORDER BY l.projection_id")) {
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          revisions += rs.getInt(4);
          mismatches++;
          defects.add(
              "mismatch: the ledger holds revisions "
                  + rs.getInt(2)
                  + ".."
                  + rs.getInt(3)
                  + " of projection "
                  + shortId(rs.getString(1))
                  + " but no projection row of it: the row was deleted behind the ledger's"
                  + " foreign key (its model, key and window went with it), and the canonical"
                  + " view no longer shows that window");
        }
      }
    }
    int conflicts = conflictCount(model, generation);
    for (WindowHistory w : windows) {
      for (WindowHistory.ConflictRow r : w.conflicts()) {
        defects.add(
            "conflict: "
                + label(w)
                + ": "
                + (r.isFinal() ? "final record of revision " : "revision ")
                + r.revision()
                + " offered with digest "
                + shortId(r.offeredDigest())
                + " refused: "
                + r.reason());
      }
    }
    return new LedgerVerification(
        model, projections, revisions, gaps, mismatches, conflicts, held, List.copyOf(defects));
  }

  /** A window for people: key, bounds, generation and the projection id's first 12 digits. */
  public static String label(WindowHistory w) {
    String key =
        w.key().entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(" "));
    return key
        + " ["
        + w.windowStart()
        + ", "
        + w.windowEnd()
        + ") generation "
        + w.generation()
        + " (projection "
        + shortId(w.projectionId())
        + ")";
  }

  /** The first 12 hex digits of a 64-digit id or digest. */
  public static String shortId(@Nullable String id) {
    return id == null ? "-" : id.substring(0, Math.min(12, id.length()));
  }

  // ---------------------------------------------------------------- reading

  /** A window being assembled from the tables. */
  private static final class Window {
    String projectionId;
    String model;
    String logicalWindowId;
    int generation;
    Map<String, Object> key;
    Instant windowStart;
    Instant windowEnd;
    WindowHistory.Current current;
    final List<WindowHistory.LedgerRow> ledger = new ArrayList<>();
    final List<WindowHistory.HeldRow> held = new ArrayList<>();
    final List<WindowHistory.ConflictRow> conflicts = new ArrayList<>();

    WindowHistory toHistory(boolean canonical) {
      return new WindowHistory(
          projectionId,
          model,
          logicalWindowId,
          generation,
          key,
          windowStart,
          windowEnd,
          Optional.ofNullable(current),
          List.copyOf(ledger),
          List.copyOf(held),
          List.copyOf(conflicts),
          canonical);
    }
  }

  /**
   * The WHERE clause shared by every query: model, then the filter on the window's columns ({@code
   * w.}).
   */
  private static String where(Filter f) {
    StringBuilder sql = new StringBuilder(" WHERE w.model = ?");
    for (int i = 0; i < f.keyEquals().size(); i++) {
      sql.append(" AND w.window_key ->> ? = ?");
    }
    if (f.windowStart() != null) {
      sql.append(" AND w.window_start = ?");
    }
    if (f.generation() != null) {
      sql.append(" AND w.generation = ?");
    }
    return sql.toString();
  }

  private static int bind(PreparedStatement s, String model, Filter f) throws SQLException {
    int i = 1;
    s.setString(i++, model);
    for (Map.Entry<String, String> e : f.keyEquals().entrySet()) {
      s.setString(i++, e.getKey());
      s.setString(i++, e.getValue());
    }
    if (f.windowStart() != null) {
      s.setObject(i++, f.windowStart().atOffset(java.time.ZoneOffset.UTC));
    }
    if (f.generation() != null) {
      s.setInt(i++, f.generation());
    }
    return i;
  }

  private static void readWindows(
      Connection c, String model, Filter f, String table, Map<String, Window> windows)
      throws SQLException {
    boolean projection = table.endsWith(".projection");
    String sql =
        "SELECT w.projection_id, w.model, w.logical_window_id, w.generation, w.window_key::text,"
            + " w.window_start, w.window_end"
            + (projection
                ? ", w.revision, w.status, w.aggregate_values::text, w.aggregate_digest,"
                    + " w.updated_at, w.finalized_at"
                : "")
            + " FROM "
            + table
            + " w"
            + where(f);
    try (PreparedStatement s = c.prepareStatement(sql)) {
      bind(s, model, f);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          Window w = windows.get(rs.getString(1));
          if (w == null) {
            w = new Window();
            w.projectionId = rs.getString(1);
            w.model = rs.getString(2);
            w.logicalWindowId = rs.getString(3);
            w.generation = rs.getInt(4);
            w.key = json(rs.getString(5));
            w.windowStart = instant(rs, 6);
            w.windowEnd = instant(rs, 7);
            windows.put(w.projectionId, w);
          }
          if (projection) {
            w.current =
                new WindowHistory.Current(
                    rs.getInt(8),
                    rs.getString(9),
                    json(rs.getString(10)),
                    rs.getString(11),
                    instant(rs, 12),
                    rs.getObject(13) == null ? null : instant(rs, 13));
          }
        }
      }
    }
  }

  private static void readLedger(Connection c, String model, Filter f, Map<String, Window> windows)
      throws SQLException {
    String sql =
        "SELECT l.projection_id, l.revision, l.predecessor, l.status, l.aggregate_values::text,"
            + " l.aggregate_digest, l.offsets::text, l.recorded_at FROM"
            + " streamform.correction_ledger l JOIN streamform.projection w USING (projection_id)"
            + where(f)
            + " ORDER BY l.projection_id, l.revision";
    try (PreparedStatement s = c.prepareStatement(sql)) {
      bind(s, model, f);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          windows
              .get(rs.getString(1))
              .ledger
              .add(
                  new WindowHistory.LedgerRow(
                      rs.getInt(2),
                      (Integer) rs.getObject(3),
                      rs.getString(4),
                      json(rs.getString(5)),
                      rs.getString(6),
                      json(rs.getString(7)),
                      instant(rs, 8)));
        }
      }
    }
  }

  private static void readHeld(Connection c, String model, Filter f, Map<String, Window> windows)
      throws SQLException {
    String sql =
        "SELECT w.projection_id, w.revision, w.final, w.aggregate_digest, w.held_at"
            + " FROM streamform.held_revision w"
            + where(f)
            + " ORDER BY w.projection_id, w.revision, w.final";
    try (PreparedStatement s = c.prepareStatement(sql)) {
      bind(s, model, f);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          windows
              .get(rs.getString(1))
              .held
              .add(
                  new WindowHistory.HeldRow(
                      rs.getInt(2), rs.getBoolean(3), rs.getString(4), instant(rs, 5)));
        }
      }
    }
  }

  private static void readConflicts(
      Connection c, String model, Filter f, Map<String, Window> windows) throws SQLException {
    String sql =
        "SELECT k.projection_id, k.revision, k.final, k.reason, k.stored_digest, k.offered_digest,"
            + " k.recorded_at FROM streamform.revision_conflict k JOIN streamform.projection w"
            + " USING (projection_id)"
            + where(f)
            + " ORDER BY k.projection_id, k.conflict_id";
    try (PreparedStatement s = c.prepareStatement(sql)) {
      bind(s, model, f);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          windows
              .get(rs.getString(1))
              .conflicts
              .add(
                  new WindowHistory.ConflictRow(
                      rs.getInt(2),
                      rs.getBoolean(3),
                      rs.getString(4),
                      rs.getString(5),
                      rs.getString(6),
                      instant(rs, 7)));
        }
      }
    }
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    return rs.getObject(column, OffsetDateTime.class).toInstant();
  }

  /**
   * Two keys by their columns' values, column by column in the key's order: numbers by value (2
   * before 10), text by its characters, a null first; 0 where the values are of different kinds.
   */
  private static int byKeyValue(Map<String, Object> a, Map<String, Object> b) {
    Iterator<Object> i = a.values().iterator();
    Iterator<Object> j = b.values().iterator();
    while (i.hasNext() && j.hasNext()) {
      Object x = i.next();
      Object y = j.next();
      int c;
      if (x == null || y == null) {
        c = x == null ? (y == null ? 0 : -1) : 1;
      } else if (x instanceof Number n && y instanceof Number m) {
        c =
            new java.math.BigDecimal(n.toString())
                .compareTo(new java.math.BigDecimal(m.toString()));
      } else if (x instanceof String p && y instanceof String q) {
        c = p.compareTo(q);
      } else {
        c = 0;
      }
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private static Map<String, Object> json(String text) {
    try {
      return JSON.readValue(text, MAP);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the ledger holds JSON that does not parse: " + text, e);
    }
  }
}
