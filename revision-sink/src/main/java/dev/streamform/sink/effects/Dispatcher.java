package dev.streamform.sink.effects;

import dev.streamform.core.text.Counts;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a model's effects out of the ledger to their providers (docs/semantics.md §10), one atomic
 * phase per step, each a compare-and-set on the effect's state, foreign I/O only between them:
 *
 * <ol>
 *   <li><b>expire</b>: an effect {@code DISPATCHING} for longer than the lease belongs to a
 *       dispatcher that died after claiming it: {@code UNKNOWN} (it may have been delivered);
 *   <li><b>resolve</b>: an {@code UNKNOWN} effect is asked about — only when its provider answers
 *       receipt queries: found is {@code DONE} with the receipt; never applied and the provider
 *       dedupes by key: claimed again ({@code UNKNOWN -> DISPATCHING}) and delivered under the same
 *       key — after a request that got no answer only once its lease is over, as the provider may
 *       still apply it until then — confirmed as a claim is: its window moved meanwhile, it is
 *       first evaluated on the canonical values ({@code UNKNOWN -> PREPARED}, then followed and
 *       claimed, or {@code CANCELLED} when its rule is false: ADR 0159); otherwise it stays {@code
 *       UNKNOWN} for a person. Never a blind retry. The first query after an outcome is made at
 *       once; a query that leaves the effect {@code UNKNOWN} (it failed, or its answer cannot
 *       settle the effect) moves {@code next_attempt_at} by the same doubling backoff, and the next
 *       query waits for it (ADR 0108);
 *   <li><b>claim</b>: one {@code PREPARED} effect at a time, chosen in SQL among those that can be
 *       sent now (confirmed against the generation its key reads and that window's revision, a
 *       provider here, its backoff over), locked ({@code FOR UPDATE SKIP LOCKED}: several
 *       dispatchers take disjoint effects) and moved to {@code DISPATCHING} with a fresh attempt
 *       token, its lease starting then, before any I/O;
 *   <li><b>deliver</b>: right after its claim; the provider receives the effect key as its
 *       idempotency key; applied is {@code DONE} with the receipt, a refused connection {@code
 *       PREPARED} again (nothing was sent; evaluated on the canonical values, and the compensations
 *       recorded during the attempt closed: ADR 0202), anything else {@code UNKNOWN} — the last two
 *       with a {@code next_attempt_at} that doubles per attempt.
 * </ol>
 *
 * <p>An outcome is written only over its own attempt (the effect's attempt token, this dispatcher,
 * state {@code DISPATCHING}, or {@code UNKNOWN} when the lease expired with no attempt since): a
 * lost compare-and-set is logged and counted, never overwrites. An outcome the database refused is
 * kept in memory and written again by the next passes (which claim nothing meanwhile); a dispatcher
 * that dies with one leaves the effect {@code DISPATCHING}, resolved by receipt after the lease.
 *
 * <p>A model whose effects are paused ({@link EffectsPause}) has nothing claimed: neither a
 * PREPARED effect nor an UNKNOWN one that a receipt query found never applied. The switch is
 * checked by each claim's own statement, so a pause committed mid-pass stops that pass's next
 * claim; what was claimed before finishes and is written. Expiry and receipts (which only record)
 * go on.
 *
 * <p>A {@link Hooks} lets a test stop the dispatcher dead between the phases, as a kill would.
 */
public final class Dispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

  /**
   * The claims' guard: the model is not paused, as of the claim's own statement (a pause committed
   * after the pass began still stops it).
   */
  private static String notPaused(String modelColumn) {
    return " AND NOT EXISTS (SELECT 1 FROM streamform.effect_pause z WHERE z.model = "
        + modelColumn
        + ")";
  }

  /**
   * The effect's generation is the one its window's key reads ({@code a} the alias, {@code p} the
   * projection): the canonical generation, or the canary's for a key in its share.
   */
  private static final String READS_ITS_GENERATION =
      " streamform.generation_for_key(a.generation, a.canary_generation, a.canary_basis_points,"
          + " p.window_key) = e.generation";

  /** In-line tries of one outcome write before it is kept for the next pass. */
  private static final int OUTCOME_TRIES = 3;

  private final DataSource dataSource;
  private final String name;
  private final String model;
  private final Map<String, EffectProvider> providers;
  private final Duration lease;
  private final Hooks hooks;
  private final Duration backoff;
  private final Duration maxBackoff;
  private final EffectSettlement.Reevaluation reevaluation;

  /** Outcomes learned from providers that the database has not taken yet, oldest first. */
  private final Deque<Outcome> unwritten = new ArrayDeque<>();

  /** Called between the phases; a test throws from one to simulate a dispatcher killed there. */
  public interface Hooks {
    /**
     * The claim's transaction is about to commit (the effects are still PREPARED in the database).
     */
    default void beforeClaimCommit(List<String> effectKeys) {}

    /** The provider has answered (or not); the outcome is not yet written. */
    default void afterDelivery(String effectKey, EffectProvider.Delivery delivery) {}
  }

  /**
   * What one {@link #runOnce} did.
   *
   * @param backingOff effects (PREPARED or UNKNOWN) whose next attempt is not due yet
   * @param lost outcomes not written because another dispatcher, or a person's settlement ({@link
   *     EffectSettlement}), moved the effect first
   * @param unwritten outcomes the database has not taken yet (kept, written by a later pass)
   * @param writeFailures outcome writes the database refused in this pass (each tried again)
   * @param receiptFailures receipt queries of this pass that failed (the effect stays UNKNOWN and
   *     is asked about again after its backoff)
   * @param receiptsForAPerson effects a receipt query of this pass found never applied whose
   *     provider does not dedupe by key: never sent again, UNKNOWN for a person
   * @param cancelled effects a receipt query of this pass found never applied whose generation and
   *     revision were no longer canonical and whose rule is false on the canonical values: {@code
   *     CANCELLED}, nothing sent (ADR 0159)
   * @param lastReceiptProblem what the last failed receipt query of this pass said, or null
   * @param paused the model's pause as the pass ended, if its effects are paused
   * @param noProvider effects (PREPARED) of a type this dispatcher has no provider for: a rule the
   *     project no longer declares; never claimed here
   * @param noProviderTypes those effects' types, sorted
   * @param lastWriteRefusal when the last outcome write of this pass the database refused was
   *     refused for its data (SQLState class 22 or 23: not an outage), what it said ({@link
   *     #dataRefusal}); null when it was not, or none was refused (ADR 0184)
   * @param lastNotSentReason why the last delivery of this pass that sent nothing sent nothing
   *     ({@code connection refused by <url>}), or null
   * @param aliasHeld who held the model's alias longer than this dispatcher's lease, so that this
   *     pass stopped claiming (ADR 0201), or null
   */
  public record Report(
      int expired,
      int resolvedDone,
      int redispatched,
      int stillUnknown,
      int claimed,
      int waiting,
      int done,
      int unknown,
      int notSent,
      int backingOff,
      int lost,
      int unwritten,
      int writeFailures,
      int receiptFailures,
      int receiptsForAPerson,
      int cancelled,
      @Nullable String lastReceiptProblem,
      Optional<EffectsPause.State> paused,
      int noProvider,
      List<String> noProviderTypes,
      @Nullable String lastWriteRefusal,
      @Nullable String lastNotSentReason,
      @Nullable String aliasHeld) {
    public String describe() {
      return paused
              .map(
                  p ->
                      claimed == 0
                          ? "effects paused (" + p.describe() + "): nothing new claimed; "
                          // the pause committed while this pass was claiming
                          : "effects paused during this pass ("
                              + p.describe()
                              + "): nothing claimed after it; ")
              .orElse("")
          + claimed
          + (paused.isPresent() && claimed > 0 ? " claimed before it, " : " claimed, ")
          + done
          + " done, "
          + unknown
          + " unknown, "
          + notSent
          + (lastNotSentReason == null
              ? " not sent (prepared again), "
              : " not sent (prepared again; last: " + lastNotSentReason + "), ")
          + waiting
          + (waiting == 1
              ? " waiting for its canonical revision; "
              : " waiting for their canonical revision; ")
          + Counts.of(expired, "expired dispatch")
          + ", "
          + resolvedDone
          + " resolved by receipt, "
          + redispatched
          + " delivered again after a receipt query said never applied, "
          + stillUnknown
          + " still unknown"
          + (backingOff == 0
              ? ""
              : "; "
                  + backingOff
                  + (backingOff == 1
                      ? " backing off until its next attempt"
                      : " backing off until their next attempt"))
          + (receiptFailures == 0
              ? ""
              : "; "
                  + Counts.of(receiptFailures, "receipt query", "receipt queries")
                  + " failed (last: "
                  + lastReceiptProblem
                  + "), asked again after "
                  + (receiptFailures == 1 ? "its" : "their")
                  + " backoff")
          + (receiptsForAPerson == 0
              ? ""
              : "; "
                  + receiptsForAPerson
                  + " found never applied and left UNKNOWN for a person ("
                  + (receiptsForAPerson == 1
                      ? "its provider does not dedupe by key, so it is never sent again)"
                      : "their provider does not dedupe by key, so they are never sent again)"))
          + (cancelled == 0
              ? ""
              : "; "
                  + cancelled
                  + " found never applied and cancelled, nothing sent ("
                  + (cancelled == 1 ? "its rule is" : "their rule is")
                  + " false on the canonical values now)")
          + (lost == 0
              ? ""
              : "; "
                  + Counts.of(lost, "outcome")
                  + " lost to another dispatcher or a person's settlement (not written)")
          + (writeFailures == 0
              ? ""
              : "; "
                  + Counts.of(writeFailures, "outcome write")
                  + (lastWriteRefusal == null
                      ? " failed (database unavailable) and "
                      : " refused by the database (not an outage: " + lastWriteRefusal + ") and ")
                  + (writeFailures == 1 ? "was" : "were")
                  + " tried again")
          + (unwritten == 0
              ? ""
              : "; " + Counts.of(unwritten, "outcome") + " not yet written, kept to be written")
          + (noProvider == 0
              ? ""
              : "; "
                  + noProvider
                  + " of "
                  + (noProviderTypes.size() == 1 ? "an effect type" : "effect types")
                  + " this dispatcher has no provider for ("
                  + String.join(", ", noProviderTypes)
                  + "): declare "
                  + (noProviderTypes.size() == 1 ? "its rule" : "their rules")
                  + " in the project, or dispatch "
                  + (noProvider == 1 ? "it" : "them")
                  + " with the project that does")
          + (aliasHeld == null
              ? ""
              : "; nothing more claimed in this pass: the model's alias was held longer than the"
                  + " lease by "
                  + aliasHeld
                  + " (an alias set that has not committed, or a transaction left open); tried"
                  + " again next pass");
    }
  }

  /**
   * A pass the database stopped: {@link #report} counts what the pass did before (its claims and
   * the outcomes it learned), so what a dispatcher prints adds up.
   */
  public static final class PassFailed extends SQLException {
    private static final long serialVersionUID = 1L;
    private final transient Report report;

    PassFailed(SQLException cause, Report report) {
      super(cause.getMessage(), cause.getSQLState(), cause.getErrorCode(), cause);
      this.report = report;
    }

    /** What the pass did before the database failed (its idle counts are 0: not read). */
    public Report report() {
      return report;
    }
  }

  /**
   * A dispatcher named {@code name} (recorded on the effects it claims) for {@code model}'s
   * effects, with a provider per effect type. {@code lease} must exceed the providers' timeouts: an
   * effect dispatching for longer is taken for abandoned. Backoff: 1 s doubling up to 5 min.
   */
  public Dispatcher(
      DataSource dataSource,
      String name,
      String model,
      Map<String, EffectProvider> providers,
      Duration lease,
      Hooks hooks) {
    this(
        dataSource,
        name,
        model,
        providers,
        lease,
        hooks,
        Duration.ofSeconds(1),
        Duration.ofMinutes(5),
        EffectSettlement.Reevaluation.NONE);
  }

  private Dispatcher(
      DataSource dataSource,
      String name,
      String model,
      Map<String, EffectProvider> providers,
      Duration lease,
      Hooks hooks,
      Duration backoff,
      Duration maxBackoff,
      EffectSettlement.Reevaluation reevaluation) {
    for (Map.Entry<String, EffectProvider> p : providers.entrySet()) {
      if (lease.compareTo(p.getValue().timeout()) <= 0) {
        throw new IllegalArgumentException(
            "the lease ("
                + lease.toMillis()
                + " ms) must exceed the timeout of "
                + p.getKey()
                + "'s provider ("
                + p.getValue().timeout().toMillis()
                + " ms)");
      }
    }
    if (backoff.isNegative() || maxBackoff.compareTo(backoff) < 0) {
      throw new IllegalArgumentException(
          "backoff " + backoff + " must be >= 0 and <= its maximum " + maxBackoff);
    }
    this.dataSource = dataSource;
    this.name = name;
    this.model = model;
    this.providers = Map.copyOf(providers);
    this.lease = lease;
    this.hooks = hooks;
    this.backoff = backoff;
    this.maxBackoff = maxBackoff;
    this.reevaluation = reevaluation;
  }

  /**
   * The same dispatcher with another backoff: after an attempt that sent nothing or whose outcome
   * is unknown, the effect's next attempt waits {@code first × 2^(attempts-1)}, at most {@code
   * max}.
   */
  public Dispatcher withBackoff(Duration first, Duration max) {
    return new Dispatcher(
        dataSource, name, model, providers, lease, hooks, first, max, reevaluation);
  }

  /**
   * The same dispatcher, bringing an UNKNOWN effect a receipt query found never applied in line
   * with its window's canonical values by {@code reevaluation} before delivering it again, when its
   * generation and revision are no longer canonical ({@code Ledger.reevaluation}, the re-evaluation
   * {@code alias set} and {@code effects settle --not-applied} make). Without one such an effect is
   * made PREPARED again and waits for its canonical revision; nothing is sent either way.
   */
  public Dispatcher withReevaluation(EffectSettlement.Reevaluation reevaluation) {
    return new Dispatcher(
        dataSource, name, model, providers, lease, hooks, backoff, maxBackoff, reevaluation);
  }

  /**
   * An effect this dispatcher holds: claimed under {@code token}, having confirmed {@code
   * generation} and {@code revision} under the alias at {@code aliasVersion} (recorded on the
   * claim's transition: ADR 0161).
   */
  private record Attempt(
      String key,
      String type,
      String payload,
      String token,
      int generation,
      int revision,
      long aliasVersion,
      long compensationsBefore) {}

  /** What a delivery of an attempt learned, to be written over that attempt. */
  private record Outcome(Attempt attempt, EffectProvider.Delivery delivery) {}

  /** Counts of one pass. */
  private static final class Tally {
    int resolvedDone;
    int redispatched;
    int stillUnknown;
    int claimed;
    int done;
    int unknown;
    int notSent;
    int lost;
    int writeFailures;
    int receiptFailures;
    int receiptsForAPerson;
    int cancelled;
    @Nullable String lastReceiptProblem;
    @Nullable String lastWriteRefusal;
    @Nullable String lastNotSentReason;
    @Nullable String aliasHeld;
  }

  /**
   * What the database said when it refused a statement for its data — SQLState class 22 (data
   * exception: a value it cannot take) or 23 (integrity constraint violation) — rather than being
   * unavailable: {@code SQLState 23514, ERROR: new row … violates check constraint …} (its first
   * line). Empty for any other failure. A refusal is not an outage, and a pass line that called it
   * "database unavailable" hid the cause of a stall (ADR 0184).
   */
  public static Optional<String> dataRefusal(SQLException e) {
    for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof SQLException q
          && q.getSQLState() != null
          && (q.getSQLState().startsWith("22") || q.getSQLState().startsWith("23"))) {
        String said = String.valueOf(q.getMessage()).strip();
        int eol = said.indexOf('\n');
        return Optional.of(
            "SQLState " + q.getSQLState() + ", " + (eol < 0 ? said : said.substring(0, eol)));
      }
    }
    return Optional.empty();
  }

  /** Outcomes learned but not yet written (the database refused them so far). */
  public int unwrittenOutcomes() {
    return unwritten.size();
  }

  /**
   * One pass: writes the outcomes kept from earlier passes (and stops there while the database
   * refuses them), then expires, resolves, and claims and delivers up to {@code limit} PREPARED
   * effects one at a time.
   *
   * @throws PassFailed when the database fails mid-pass, with what the pass did until then
   */
  public Report runOnce(int limit) throws SQLException {
    Tally n = new Tally();
    if (!writeUnwritten(n)) {
      return report(0, n, Idle.NONE, Optional.empty());
    }
    int expired = 0;
    try {
      expired = expire();
      boolean paused = pausedNow().isPresent();
      List<String> tried = new ArrayList<>();
      resolve(n, tried, paused);
      for (int i = 0; i < limit && unwritten.isEmpty() && !paused && n.aliasHeld == null; i++) {
        // an effect is attempted at most once per pass, whatever its backoff
        Attempt a;
        try {
          a = claimOne(tried);
        } catch (AliasHeld held) {
          n.aliasHeld = held.getMessage();
          break;
        }
        if (a == null) {
          break;
        }
        n.claimed++;
        tried.add(a.key());
        deliver(a, n);
      }
      Idle idle = idle();
      return report(expired, n, idle, pausedNow());
    } catch (SQLException e) {
      throw new PassFailed(e, report(expired, n, Idle.NONE, Optional.empty()));
    }
  }

  /** The model's pause, if its effects are paused now. */
  private Optional<EffectsPause.State> pausedNow() throws SQLException {
    return new EffectsPause(dataSource).state(model);
  }

  private Report report(int expired, Tally n, Idle idle, Optional<EffectsPause.State> paused) {
    int waiting = idle.waiting();
    int backingOff = idle.backingOff();
    return new Report(
        expired,
        n.resolvedDone,
        n.redispatched,
        n.stillUnknown,
        n.claimed,
        waiting,
        n.done,
        n.unknown,
        n.notSent,
        backingOff,
        n.lost,
        unwritten.size(),
        n.writeFailures,
        n.receiptFailures,
        n.receiptsForAPerson,
        n.cancelled,
        n.lastReceiptProblem,
        paused,
        idle.noProvider(),
        idle.noProviderTypes(),
        n.lastWriteRefusal,
        n.lastNotSentReason,
        n.aliasHeld);
  }

  /** Writes the kept outcomes, oldest first; false when one is still refused. */
  private boolean writeUnwritten(Tally n) {
    while (!unwritten.isEmpty()) {
      Outcome o = unwritten.peekFirst();
      try {
        count(o, write(o), n);
      } catch (AliasHeldOnWrite held) {
        n.aliasHeld = held.holder;
        return false;
      } catch (SQLException e) {
        n.writeFailures++;
        n.lastWriteRefusal = dataRefusal(e).orElse(null);
        LOG.warn(
            "dispatcher {}: the outcome of {} is still not written ({}); {} kept",
            name,
            o.attempt().key(),
            dataRefusal(e).orElse(e.getMessage()),
            unwritten.size());
        return false;
      }
      unwritten.removeFirst();
    }
    return true;
  }

  private void deliver(Attempt a, Tally n) {
    // the provider's text as the ledger can store it: a NUL in a receipt stalled every pass
    EffectProvider.Delivery d =
        ProviderText.storable(providers.get(a.type()).deliver(a.key(), a.payload()));
    hooks.afterDelivery(a.key(), d);
    Outcome o = new Outcome(a, d);
    SQLException last = null;
    for (int attempt = 0; attempt < OUTCOME_TRIES; attempt++) {
      try {
        count(o, write(o), n);
        return;
      } catch (AliasHeldOnWrite held) {
        n.aliasHeld = held.holder;
        unwritten.addLast(o);
        return;
      } catch (SQLException e) {
        n.writeFailures++;
        n.lastWriteRefusal = dataRefusal(e).orElse(null);
        last = e;
        pause(Duration.ofMillis(100L << attempt));
      }
    }
    LOG.warn(
        "dispatcher {}: the outcome of {} ({}) could not be written ({}); kept to be written later",
        name,
        a.key(),
        d,
        dataRefusal(last).orElse(last.getMessage()));
    unwritten.addLast(o);
  }

  private static void count(Outcome o, Written written, Tally n) {
    if (written == Written.LOST) {
      n.lost++;
    } else if (o.delivery() instanceof EffectProvider.Applied) {
      n.done++;
    } else if (written == Written.CANCELLED) {
      // nothing was sent, and the canonical values no longer make the rule true
      n.cancelled++;
    } else if (o.delivery() instanceof EffectProvider.NotSent notSent) {
      n.notSent++;
      n.lastNotSentReason = notSent.reason();
    } else {
      n.unknown++;
    }
  }

  /** What writing an outcome did. */
  private enum Written {
    WRITTEN,
    CANCELLED,
    LOST
  }

  /** Effects that cannot be claimed now, by why. */
  private record Idle(int waiting, int backingOff, int noProvider, List<String> noProviderTypes) {
    static final Idle NONE = new Idle(0, 0, 0, List.of());
  }

  /**
   * Effects that cannot be claimed now: waiting for their canonical revision, backing off, and of a
   * type this dispatcher has no provider for (with the types).
   */
  private Idle idle() throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT count(*) FILTER (WHERE e.state = 'PREPARED' AND p.revision IS NULL AND"
                  + " e.effect_type = ANY(?)), count(*) FILTER (WHERE e.next_attempt_at > now()"
                  + " AND (e.state = 'UNKNOWN'   OR (p.revision IS NOT NULL AND e.effect_type ="
                  + " ANY(?)))), count(*) FILTER (WHERE e.state = 'PREPARED' AND NOT"
                  + " e.effect_type = ANY(?)), array_agg(DISTINCT e.effect_type ORDER BY"
                  + " e.effect_type) FILTER (WHERE e.state = 'PREPARED' AND NOT e.effect_type ="
                  + " ANY(?)) FROM streamform.effect e LEFT JOIN streamform.canonical_alias a ON"
                  + " a.model = e.model LEFT JOIN streamform.projection p ON p.logical_window_id ="
                  + " e.logical_window_id AND p.generation = e.generation AND p.revision ="
                  + " e.revision AND"
                  + READS_ITS_GENERATION
                  + " WHERE e.model = ? AND e.state IN ('PREPARED', 'UNKNOWN')")) {
        Array types = types(c);
        s.setArray(1, types);
        s.setArray(2, types);
        s.setArray(3, types);
        s.setArray(4, types);
        s.setString(5, model);
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          Array missing = rs.getArray(4);
          List<String> names = missing == null ? List.of() : List.of((String[]) missing.getArray());
          Idle out = new Idle(rs.getInt(1), rs.getInt(2), rs.getInt(3), names);
          c.commit();
          return out;
        }
      }
    }
  }

  private Array types(Connection c) throws SQLException {
    return c.createArrayOf("text", providers.keySet().toArray());
  }

  private int expire() throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      List<String> keys = new ArrayList<>();
      List<String> notes = new ArrayList<>();
      try (PreparedStatement s =
          c.prepareStatement(
              "UPDATE streamform.effect SET state = 'UNKNOWN', updated_at = now(), last_error ="
                  + " 'dispatcher ' || coalesce(dispatcher, '?') || ' held it past its lease' WHERE"
                  + " model = ? AND state = 'DISPATCHING' AND coalesce(lease_until, dispatched_at +"
                  + " ?::interval) < now() RETURNING effect_key, coalesce(dispatcher, '?'),"
                  + " round(extract(epoch FROM coalesce(lease_until - dispatched_at, ?::interval))"
                  + " * 1000)::bigint")) {
        // the lease that ran out is the claimer's own (ADR 0194), not this dispatcher's
        s.setString(1, model);
        s.setString(2, lease.toMillis() + " milliseconds");
        s.setString(3, lease.toMillis() + " milliseconds");
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            keys.add(rs.getString(1));
            notes.add(
                "the lease of dispatcher "
                    + rs.getString(2)
                    + " ("
                    + rs.getLong(3)
                    + " ms) expired");
          }
        }
      }
      for (int i = 0; i < keys.size(); i++) {
        transition(c, keys.get(i), "DISPATCHING", "UNKNOWN", notes.get(i));
      }
      c.commit();
      return keys.size();
    }
  }

  /**
   * An UNKNOWN effect as read: {@code due} its next attempt (a delivery) may be made; {@code ask} a
   * receipt query may be made (the first since its outcome, or its backoff over).
   */
  private record Unknown(
      String key, String type, String payload, @Nullable String token, boolean due, boolean ask) {}

  private void resolve(Tally n, List<String> tried, boolean paused) throws SQLException {
    List<Unknown> unknown = new ArrayList<>();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT effect_key, effect_type, payload::text, attempt_token, next_attempt_at IS"
                  + " NULL OR next_attempt_at <= now(), receipt_queries = 0 OR next_attempt_at IS"
                  + " NULL OR next_attempt_at <= now() FROM streamform.effect WHERE model = ? AND"
                  + " state = 'UNKNOWN' ORDER BY updated_at")) {
        s.setString(1, model);
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            unknown.add(
                new Unknown(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4),
                    rs.getBoolean(5),
                    rs.getBoolean(6)));
          }
        }
      }
      c.commit();
    }
    for (Unknown u : unknown) {
      if (!unwritten.isEmpty() || n.aliasHeld != null) {
        n.stillUnknown++;
        continue;
      }
      EffectProvider provider = providers.get(u.type());
      if (provider == null || !provider.receiptQueries() || !u.ask()) {
        n.stillUnknown++;
        continue;
      }
      // as a delivery's: the receipt query's answer as the ledger can store it (ADR 0184)
      EffectProvider.Lookup l = ProviderText.storable(provider.lookup(u.key()));
      if (l instanceof EffectProvider.Found f) {
        if (resolveDone(u, f.receipt())) {
          n.resolvedDone++;
        } else {
          n.lost++;
        }
      } else if (l instanceof EffectProvider.NotFound && !provider.idempotencyKeys()) {
        n.stillUnknown++;
        n.receiptsForAPerson++;
        backOffQuery(
            u,
            "receipt query: never applied; not sent again: for a person (its provider does not"
                + " dedupe by key)");
      } else if (l instanceof EffectProvider.NotFound && !u.due()) {
        // the unanswered request may still be applied until its lease is over: asked again then
        n.stillUnknown++;
        backOffQuery(
            u,
            "receipt query: not applied yet; the unanswered request may still arrive until its"
                + " lease is over");
      } else if (l instanceof EffectProvider.NotFound) {
        if (paused) {
          // delivered again once resumed: the pause, not the provider, holds it; the next query
          // waits the backoff, as any that leaves the effect UNKNOWN (not one every pass)
          n.stillUnknown++;
          backOffQuery(
              u, "receipt query: never applied; delivered again once the model's effects resume");
          continue;
        }
        Reclaimed again;
        try {
          again = reclaim(u);
        } catch (AliasHeld held) {
          // asked about again next pass; nothing of this pass waits for the alias again
          n.aliasHeld = held.getMessage();
          n.stillUnknown++;
          continue;
        }
        if (again.attempt() != null) {
          n.redispatched++;
          tried.add(u.key());
          deliver(again.attempt(), n);
        } else if (again.state().equals("CANCELLED")) {
          n.cancelled++;
          tried.add(u.key());
        } else if (again.state().equals("PREPARED")) {
          // its window has no canonical revision it could follow: it waits, as any PREPARED effect
          tried.add(u.key());
        } else {
          n.lost++;
        }
      } else {
        String reason = ((EffectProvider.Unanswered) l).reason();
        n.stillUnknown++;
        n.receiptFailures++;
        n.lastReceiptProblem = reason;
        backOffQuery(u, "receipt query failed: " + reason);
      }
    }
  }

  /**
   * A receipt query that left the effect UNKNOWN: the next one waits the doubling backoff (never
   * less than the wait already set, e.g. the end of an unanswered request's lease), over the
   * attempt that was read; {@code said} is kept for {@code effects show}.
   */
  private void backOffQuery(Unknown u, String said) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement s =
          c.prepareStatement(
              "UPDATE streamform.effect SET receipt_queries = receipt_queries + 1, receipt_error ="
                  + " ?, next_attempt_at = greatest(next_attempt_at, now() + least(? *"
                  + " power(2, least(attempts + receipt_queries, 30)), ?) *"
                  + " interval '1 millisecond') WHERE effect_key = ? AND state = 'UNKNOWN' AND"
                  + " attempt_token IS NOT DISTINCT FROM ?")) {
        s.setString(1, said);
        s.setDouble(2, backoff.toMillis());
        s.setDouble(3, maxBackoff.toMillis());
        s.setString(4, u.key());
        s.setString(5, u.token());
        s.executeUpdate();
      }
      c.commit();
    }
  }

  /** UNKNOWN -> DONE by a receipt, over the attempt that was read. */
  private boolean resolveDone(Unknown u, String receipt) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      int moved;
      try (PreparedStatement s =
          c.prepareStatement(
              "UPDATE streamform.effect SET state = 'DONE', receipt = ?, last_error = NULL,"
                  + " receipt_error = NULL, updated_at = now(), resolved_at = now(),"
                  + " next_attempt_at = NULL WHERE effect_key = ? AND state = 'UNKNOWN' AND"
                  + " attempt_token IS NOT DISTINCT FROM ?")) {
        s.setString(1, receipt);
        s.setString(2, u.key());
        s.setString(3, u.token());
        moved = s.executeUpdate();
      }
      if (moved == 1) {
        transition(c, u.key(), "UNKNOWN", "DONE", "receipt query: applied");
      } else {
        LOG.info(
            "dispatcher {}: {} moved before its receipt was written; left as it is", name, u.key());
      }
      c.commit();
      return moved == 1;
    }
  }

  /**
   * What {@link #reclaim} did: {@code attempt} the effect claimed again (to be delivered), else the
   * state it was left in ({@code CANCELLED}, {@code PREPARED}), or {@code LOST} when another
   * dispatcher or a person moved it first.
   */
  private record Reclaimed(@Nullable Attempt attempt, String state) {}

  /**
   * An UNKNOWN effect a receipt query found never applied, its provider deduping by key, claimed
   * again over the attempt that was read — confirmed as a claim is (ADR 0159): its generation and
   * revision still the ones its window's key reads, the model not paused. Confirmed: {@code UNKNOWN
   * -> DISPATCHING} under a new attempt, as before. Not (a correction, promotion or rollback moved
   * its window while it was UNKNOWN): nothing of it was applied, so it is made {@code PREPARED}
   * again and brought in line with the canonical values by the re-evaluation, in this transaction,
   * as {@code effects settle --not-applied} does; then the claim's own confirmation decides: true
   * on the canonical values, it follows them and is claimed ({@code PREPARED -> DISPATCHING});
   * false, it is {@code CANCELLED} and nothing is sent; no canonical revision to follow, it stays
   * {@code PREPARED}, waiting for one.
   */
  private Reclaimed reclaim(Unknown u) throws SQLException, AliasHeld {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        lockAlias(c);
        // its row held by another transaction (a correction of its window, a settlement) is not
        // confirmed here: the move to PREPARED below waits for it, and what follows reads the
        // values it committed
        Attempt confirmed = claimable(c, "UNKNOWN", u.key(), List.of());
        if (confirmed != null) {
          Reclaimed r = moveUnknown(c, u, "DISPATCHING", confirmed);
          c.commit();
          return r;
        }
        Reclaimed prepared = moveUnknown(c, u, "PREPARED", null);
        if (prepared.state().equals("LOST")) {
          c.rollback();
          return prepared;
        }
        reevaluation.followCanonical(c, u.key());
        Attempt claimed = claimable(c, "PREPARED", u.key(), List.of());
        Reclaimed r;
        if (claimed != null) {
          take(c, claimed);
          r = new Reclaimed(claimed, "DISPATCHING");
        } else {
          r = new Reclaimed(null, stateOf(c, u.key()));
        }
        c.commit();
        return r;
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(c);
        throw e;
      }
    }
  }

  /**
   * UNKNOWN -> DISPATCHING under {@code confirmed}'s new attempt, or, {@code confirmed} null,
   * UNKNOWN -> PREPARED ({@code to}), over the attempt that was read, the model not paused; LOST
   * when another moved it first.
   */
  private Reclaimed moveUnknown(Connection c, Unknown u, String to, @Nullable Attempt confirmed)
      throws SQLException {
    boolean dispatching = confirmed != null;
    int attempt;
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE streamform.effect SET state = ?, attempts = attempts + CASE WHEN ? THEN 1"
                + " ELSE 0 END, dispatcher = CASE WHEN ? THEN ? ELSE dispatcher END,"
                + " attempt_token = CASE WHEN ? THEN ? ELSE attempt_token END, dispatched_at ="
                + " CASE WHEN ? THEN clock_timestamp() ELSE dispatched_at END, lease_until = CASE"
                + " WHEN ? THEN clock_timestamp() + ? * interval '1 millisecond' ELSE lease_until"
                + " END, updated_at = now(),"
                + " last_error"
                + " = NULL, receipt_queries = 0, receipt_error = NULL WHERE effect_key = ? AND"
                + " state = 'UNKNOWN' AND attempt_token IS NOT DISTINCT FROM ?"
                + notPaused("streamform.effect.model")
                + " RETURNING attempts")) {
      s.setString(1, to);
      s.setBoolean(2, dispatching);
      s.setBoolean(3, dispatching);
      s.setString(4, name);
      s.setBoolean(5, dispatching);
      s.setString(6, dispatching ? confirmed.token() : null);
      s.setBoolean(7, dispatching);
      s.setBoolean(8, dispatching);
      s.setDouble(9, lease.toMillis());
      s.setString(10, u.key());
      s.setString(11, u.token());
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return new Reclaimed(null, "LOST");
        }
        attempt = rs.getInt(1);
      }
    }
    if (dispatching) {
      claimTransition(
          c,
          confirmed,
          attempt,
          "UNKNOWN",
          "receipt query: never applied; delivered again under the same idempotency key");
    } else {
      transition(
          c,
          u.key(),
          "UNKNOWN",
          to,
          "receipt query: never applied; its generation and revision are no longer"
              + " canonical: evaluated on the canonical values before it is delivered again");
    }
    return new Reclaimed(confirmed, to);
  }

  private static String stateOf(Connection c, String key) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement("SELECT state FROM streamform.effect WHERE effect_key = ?")) {
      s.setString(1, key);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  /**
   * The first effect in {@code state} that can be sent now (confirmed against the generation its
   * key reads and that window's revision, a provider here, its backoff over, the model not paused),
   * locked ({@code SKIP LOCKED}: a row another transaction holds, e.g. the sink's correcting its
   * window, is not confirmed on values that transaction may be changing), under a fresh attempt
   * token; only {@code key} when given, none of {@code tried}; null when there is none. The one
   * confirmation of a claim, whether of a PREPARED effect or of an UNKNOWN one delivered again (ADR
   * 0159).
   */
  private @Nullable Attempt claimable(
      Connection c, String state, @Nullable String key, List<String> tried) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT e.effect_key, e.effect_type, e.payload::text, e.generation, e.revision,"
                + " a.version, (SELECT coalesce(max(k.compensation_id), 0) FROM"
                + " streamform.effect_compensation k WHERE k.effect_key = e.effect_key) FROM"
                + " streamform.effect e JOIN"
                + " streamform.canonical_alias a ON a.model = e.model JOIN"
                + " streamform.projection p ON p.logical_window_id = e.logical_window_id AND"
                + " p.generation = e.generation AND p.revision = e.revision AND"
                + READS_ITS_GENERATION
                + " WHERE e.model = ? AND e.state = ? AND e.effect_type ="
                + " ANY(?) AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= now()) AND"
                + " (?::text IS NULL OR e.effect_key = ?) AND NOT e.effect_key = ANY(?)"
                + notPaused("e.model")
                + " ORDER BY e.prepared_at, e.effect_key LIMIT 1 FOR UPDATE OF e SKIP"
                + " LOCKED")) {
      s.setString(1, model);
      s.setString(2, state);
      s.setArray(3, types(c));
      s.setString(4, key);
      s.setString(5, key);
      s.setArray(6, c.createArrayOf("text", tried.toArray()));
      try (ResultSet rs = s.executeQuery()) {
        return rs.next()
            ? new Attempt(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                UUID.randomUUID().toString(),
                rs.getInt(4),
                rs.getInt(5),
                rs.getLong(6),
                rs.getLong(7))
            : null;
      }
    }
  }

  /**
   * Takes the model's alias {@code FOR SHARE}, first in a claim's transaction: the lock order of
   * the sink, {@code alias set} and a settlement (the alias, then the effect). An {@code alias set}
   * that has changed the alias but not committed holds it {@code FOR UPDATE}, so the claim waits
   * for it and confirms against the alias it commits, never against the one it is replacing; and an
   * {@code alias set} begun after the claim waits for the claim's commit, then finds the effect
   * dispatched (a compensation when its rule or payload changed). Both paths, the fresh claim and
   * the redelivery after "never applied" (ADR 0159, ADR 0162).
   *
   * <p>It waits at most this dispatcher's lease ({@code lock_timeout}): an alias held longer is no
   * alias set in progress but a transaction left open, and a dispatcher waiting silently behind it
   * expires, asks about and claims nothing. Then the pass stops claiming and says who holds it
   * ({@link AliasHeld}); the next pass tries again (ADR 0201).
   */
  private void lockAlias(Connection c) throws SQLException, AliasHeld {
    String before;
    try (PreparedStatement s = c.prepareStatement("SELECT current_setting('lock_timeout')")) {
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        before = rs.getString(1);
      }
    }
    setLockTimeout(c, lease.toMillis() + "ms");
    try (PreparedStatement s =
        c.prepareStatement("SELECT 1 FROM streamform.canonical_alias WHERE model = ? FOR SHARE")) {
      s.setString(1, model);
      s.executeQuery().close();
    } catch (SQLException e) {
      if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
        throw e;
      }
      c.rollback();
      String who = aliasHolder(c);
      c.commit();
      LOG.warn(
          "dispatcher {}: the alias of model {} was held longer than the lease ({} ms) by {};"
              + " nothing more claimed in this pass",
          name,
          model,
          lease.toMillis(),
          who);
      throw new AliasHeld(who);
    }
    // the rest of the claim's transaction waits as it did (a row a correction holds)
    setLockTimeout(c, before);
  }

  /**
   * An outcome whose write needs the alias (one that sent nothing, ADR 0202) found it held longer
   * than the lease: kept at once and written by a later pass, and the pass says who holds the alias
   * (not "database unavailable", and not three waits of a lease each).
   */
  private static final class AliasHeldOnWrite extends SQLException {
    private static final long serialVersionUID = 1L;
    final String holder;

    AliasHeldOnWrite(String holder) {
      super("the model's alias was held longer than the lease by " + holder, LOCK_NOT_AVAILABLE);
      this.holder = holder;
    }
  }

  /** PostgreSQL's {@code lock_not_available}: a lock not granted within {@code lock_timeout}. */
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  /**
   * The model's alias was held longer than the lease: the claims of this pass stop (ADR 0201); the
   * message names who held it.
   */
  private static final class AliasHeld extends Exception {
    private static final long serialVersionUID = 1L;

    AliasHeld(String who) {
      super(who);
    }
  }

  private static void setLockTimeout(Connection c, String value) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT set_config('lock_timeout', ?, true)")) {
      s.setString(1, value);
      s.executeQuery().close();
    }
  }

  /**
   * Who holds the model's alias locked, as {@code pg_stat_activity} has it: {@code pid 4242 (user
   * alice, application psql, in a transaction since …, last statement: SELECT … FOR UPDATE)} —
   * found by the transaction id the row's lock carries ({@code xmax}); {@code another transaction}
   * when it is not found (it has ended meanwhile, or several hold it).
   */
  private String aliasHolder(Connection c) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT a.pid, coalesce(a.usename, '?'), coalesce(nullif(a.application_name, ''),"
                + " '?'), a.xact_start, left(regexp_replace(coalesce(a.query, ''), '\\s+', ' ',"
                + " 'g'), 120) FROM streamform.canonical_alias x JOIN pg_stat_activity a ON"
                + " a.backend_xid = x.xmax WHERE x.model = ? AND a.pid <> pg_backend_pid()")) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return "another transaction (it is not found in pg_stat_activity now)";
        }
        java.time.OffsetDateTime since = rs.getObject(4, java.time.OffsetDateTime.class);
        return "pid "
            + rs.getInt(1)
            + " (user "
            + rs.getString(2)
            + ", application "
            + rs.getString(3)
            + (since == null ? "" : ", in a transaction since " + since.toInstant())
            + ", last statement: "
            + rs.getString(5)
            + ")";
      }
    }
  }

  /**
   * PREPARED -> DISPATCHING under {@code claimed}'s token, its row locked by {@link #claimable}.
   * The lease starts as the row is taken ({@code clock_timestamp()}), not as the transaction began
   * ({@code now()}): a claim that waited for the alias had its lease shortened by the wait,
   * possibly over before it committed, and another dispatcher sent the effect again while this
   * one's request was in flight (ADR 0201).
   */
  private void take(Connection c, Attempt claimed) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE streamform.effect SET state = 'DISPATCHING', attempts = attempts + 1,"
                + " dispatcher = ?, attempt_token = ?, dispatched_at = clock_timestamp(),"
                + " lease_until = clock_timestamp() + ? * interval '1 millisecond', updated_at ="
                + " now(), receipt_queries = 0,"
                + " receipt_error = NULL WHERE effect_key = ? AND state = 'PREPARED' RETURNING"
                + " attempts")) {
      s.setString(1, name);
      s.setString(2, claimed.token());
      s.setDouble(3, lease.toMillis());
      s.setString(4, claimed.key());
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("effect " + claimed.key() + " moved under its row lock");
        }
        claimTransition(c, claimed, rs.getInt(1), "PREPARED", "claimed by " + name);
      }
    }
  }

  /**
   * PREPARED -> DISPATCHING for the first effect that can be sent now; null when there is none.
   * Everything that makes an effect unsendable is filtered before the LIMIT, so effects that cannot
   * be sent never hide one that can.
   */
  private @Nullable Attempt claimOne(List<String> tried) throws SQLException, AliasHeld {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        lockAlias(c);
        Attempt claimed = claimable(c, "PREPARED", null, tried);
        if (claimed == null) {
          c.commit();
          return null;
        }
        take(c, claimed);
        hooks.beforeClaimCommit(List.of(claimed.key()));
        c.commit();
        return claimed;
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(c);
        throw e;
      }
    }
  }

  /**
   * Writes an outcome over its own attempt: the effect must still carry the attempt's token and
   * this dispatcher's name, and be DISPATCHING — or UNKNOWN, when the lease expired and nobody
   * claimed it since (the outcome is then known after all). LOST when the compare-and-set is lost;
   * CANCELLED when nothing was sent and the re-evaluation then cancelled the effect.
   */
  private Written write(Outcome o) throws SQLException {
    Attempt a = o.attempt();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        if (o.delivery() instanceof EffectProvider.NotSent) {
          // the lock order of the sink, alias set and a claim (the alias, then the effect): the
          // re-evaluation below reads the alias
          try {
            lockAlias(c);
          } catch (AliasHeld held) {
            throw new AliasHeldOnWrite(held.getMessage());
          }
        }
        String from;
        try (PreparedStatement s =
            c.prepareStatement(
                "SELECT state FROM streamform.effect WHERE effect_key = ? AND attempt_token = ? AND"
                    + " dispatcher = ? AND state IN ('DISPATCHING', 'UNKNOWN') FOR UPDATE")) {
          s.setString(1, a.key());
          s.setString(2, a.token());
          s.setString(3, name);
          try (ResultSet rs = s.executeQuery()) {
            from = rs.next() ? rs.getString(1) : null;
          }
        }
        if (from == null) {
          c.commit();
          LOG.warn(
              "dispatcher {}: lost the compare-and-set for {} (another dispatcher moved it);"
                  + " outcome {} not written",
              name,
              a.key(),
              o.delivery());
          return Written.LOST;
        }
        EffectProvider.Delivery d = o.delivery();
        boolean cancelled = false;
        if (d instanceof EffectProvider.Applied applied) {
          update(c, a.key(), "DONE", applied.receipt(), null, false);
          transition(
              c,
              a.key(),
              from,
              "DONE",
              from.equals("UNKNOWN") ? "applied (answer came after the lease)" : "applied");
        } else if (d instanceof EffectProvider.NotSent notSent) {
          update(c, a.key(), "PREPARED", null, notSent.reason(), true);
          transition(c, a.key(), from, "PREPARED", "nothing sent: " + notSent.reason());
          nothingHappened(c, a, notSent.reason());
          // a correction, promotion or rollback may have moved its window while it was claimed
          // (it recorded a compensation and left the effect alone): the effect follows the
          // canonical values, or is CANCELLED, as a redelivery after "never applied" (ADR 0159);
          // left at the revision it was claimed at, it waited for ever for a revision no longer
          // canonical
          reevaluation.followCanonical(c, a.key());
          cancelled = stateOf(c, a.key()).equals("CANCELLED");
        } else if (from.equals("DISPATCHING")) {
          EffectProvider.Unknown unknown = (EffectProvider.Unknown) d;
          EffectProvider provider = providers.get(a.type());
          // no receipt query will ever settle it: say who does, as a query that finds it never
          // applied says it for a provider that does not dedupe by key
          String reason =
              provider == null || provider.receiptQueries()
                  ? unknown.reason()
                  : unknown.reason()
                      + "; for a person: its provider answers no receipt queries, so it is never"
                      + " asked about or sent again — find out at the provider and record it with"
                      + " streamform effects settle";
          update(c, a.key(), "UNKNOWN", null, reason, true);
          if (!unknown.answered()) {
            notBeforeTheLease(c, a.key());
          }
          transition(c, a.key(), from, "UNKNOWN", "outcome not known: " + reason);
        }
        c.commit();
        return cancelled ? Written.CANCELLED : Written.WRITTEN;
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c);
        throw e;
      }
    }
  }

  /**
   * Closes the compensations recorded during {@code a}, an attempt that sent nothing (ADR 0202): a
   * revision that changed the effect while it was claimed (DISPATCHING, or UNKNOWN after its lease)
   * recorded one for a person, saying the effect had happened; it did not. They are the effect's
   * compensations with an id above the highest its claim saw: a correction that waited for the
   * claim's row lock draws its id after the claim committed. Each is closed with that reason
   * ({@code effects show} prints it); the effect itself is evaluated again on the canonical values.
   * A compensation recorded before this claim (while an earlier attempt was UNKNOWN) is left open
   * for a person, as the redelivery after "never applied" leaves it.
   */
  private void nothingHappened(Connection c, Attempt a, String reason) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE streamform.effect_compensation SET resolved_at = clock_timestamp(), resolution"
                + " = ? WHERE effect_key = ? AND resolved_at IS NULL AND compensation_id > ?")) {
      s.setString(
          1,
          "by dispatcher "
              + name
              + ": nothing was sent ("
              + reason
              + "), so the effect this records never happened; it was evaluated again on the"
              + " canonical values");
      s.setString(2, a.key());
      s.setLong(3, a.compensationsBefore());
      s.executeUpdate();
    }
  }

  /**
   * An unanswered request may still reach the provider and be applied until its lease is over (the
   * lease exceeds the providers' timeouts): until then a receipt query that finds nothing is no
   * proof of "never applied", so the effect is not due again before its attempt's lease ends.
   */
  private void notBeforeTheLease(Connection c, String key) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE streamform.effect SET next_attempt_at = greatest(next_attempt_at,"
                + " coalesce(lease_until, dispatched_at + ? * interval '1 millisecond')) WHERE"
                + " effect_key = ?")) {
      s.setDouble(1, lease.toMillis());
      s.setString(2, key);
      s.executeUpdate();
    }
  }

  private void update(
      Connection c,
      String key,
      String to,
      @Nullable String receipt,
      @Nullable String error,
      boolean backOff)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE streamform.effect SET state = ?, receipt = ?, last_error = ?, receipt_queries ="
                + " 0, receipt_error = NULL, updated_at = now(), resolved_at = CASE WHEN ? IN"
                + " ('DONE', 'UNKNOWN') THEN now() ELSE resolved_at END, next_attempt_at = CASE"
                + " WHEN ? THEN now() + least(? * power(2, least(attempts - 1, 30)), ?)   *"
                + " interval '1 millisecond' END WHERE effect_key = ?")) {
      s.setString(1, to);
      s.setString(2, receipt);
      s.setString(3, error);
      s.setString(4, to);
      s.setBoolean(5, backOff);
      s.setDouble(6, backoff.toMillis());
      s.setDouble(7, maxBackoff.toMillis());
      s.setString(8, key);
      s.executeUpdate();
    }
  }

  private static void transition(Connection c, String key, String from, String to, String note)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect_transition (effect_key, from_state, to_state, note)"
                + " VALUES (?, ?, ?, ?)")) {
      s.setString(1, key);
      s.setString(2, from);
      s.setString(3, to);
      s.setString(4, note);
      s.executeUpdate();
    }
  }

  /**
   * A claim's move to DISPATCHING, recording what it confirmed: the generation and revision, the
   * alias's version it read under its lock, and the attempt it began (ADR 0161).
   */
  private static void claimTransition(
      Connection c, Attempt claimed, int attempt, String from, String note) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect_transition (effect_key, from_state, to_state, note,"
                + " confirmed_generation, confirmed_revision, alias_version, attempt, at) VALUES"
                + " (?, ?, 'DISPATCHING', ?, ?, ?, ?, ?, clock_timestamp())")) {
      s.setString(1, claimed.key());
      s.setString(2, from);
      s.setString(3, note);
      s.setInt(4, claimed.generation());
      s.setInt(5, claimed.revision());
      s.setLong(6, claimed.aliasVersion());
      s.setInt(7, attempt);
      s.executeUpdate();
    }
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // the connection is gone: the transaction is rolled back with it
    }
  }

  private static void pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
