package dev.streamform.sink.effects;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;
import javax.sql.DataSource;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The stop switch of a model's effects (docs/semantics.md §10.12), persisted in {@code
 * streamform.effect_pause}: while a model is paused, no {@link Dispatcher} claims any of its
 * effects — each claim checks the switch in its own statement, so a pause committed during a pass
 * stops that pass's next claim. Effects already claimed finish and their outcomes are written;
 * receipt queries still resolve {@code UNKNOWN} effects to {@code DONE} (that only records). Every
 * pause and resume is kept in {@code streamform.effect_pause_history}.
 */
public final class EffectsPause {
  private final DataSource dataSource;

  public EffectsPause(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** A model's pause: since when, by whom, why (the reason may be absent). */
  public record State(Instant since, String by, @Nullable String reason) {
    /** {@code since 2026-08-30T10:00:00Z by alice: generation 2 computes wrong refunds}. */
    public String describe() {
      return "since " + since + " by " + by + (reason == null ? "" : ": " + reason);
    }
  }

  /**
   * What a pause or resume did.
   *
   * @param changed false when the model already was in the asked state (nothing recorded)
   * @param before the pause that was in force before, if any
   * @param inFlight effects {@code DISPATCHING} at that moment: they finish and are recorded
   */
  public record Change(boolean changed, Optional<State> before, int inFlight) {}

  /** The model's pause, if it is paused. */
  public Optional<State> state(String model) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Optional<State> s = state(c, model);
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return s;
    }
  }

  /** Pauses the model's effects in a transaction of its own. */
  public Change pause(String model, String by, @Nullable String reason) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        Change change = pause(c, model, by, reason);
        c.commit();
        return change;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** Resumes the model's effects in a transaction of its own. */
  public Change resume(String model, String by) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        Optional<State> before = state(c, model);
        boolean changed;
        try (PreparedStatement s =
            c.prepareStatement("DELETE FROM streamform.effect_pause WHERE model = ?")) {
          s.setString(1, model);
          changed = s.executeUpdate() == 1;
        }
        if (changed) {
          history(c, model, "resume", by, null);
        }
        int inFlight = inFlight(c, model);
        c.commit();
        return new Change(changed, before, inFlight);
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /**
   * Pauses the model's effects in {@code c}'s transaction (for {@code alias set --pause-effects},
   * which moves the alias in the same transaction). A model already paused keeps its first pause.
   */
  public static Change pause(Connection c, String model, String by, @Nullable String reason)
      throws SQLException {
    Optional<State> before = state(c, model);
    boolean changed;
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect_pause (model, paused_by, reason) VALUES (?, ?, ?)"
                + " ON CONFLICT (model) DO NOTHING")) {
      s.setString(1, model);
      s.setString(2, by);
      s.setString(3, reason);
      changed = s.executeUpdate() == 1;
    }
    if (changed) {
      history(c, model, "pause", by, reason);
    }
    return new Change(changed, before, inFlight(c, model));
  }

  static Optional<State> state(Connection c, String model) throws SQLException {
    try (PreparedStatement s =
            c.prepareStatement("SELECT to_regclass('streamform.effect_pause') IS NULL");
        ResultSet rs = s.executeQuery()) {
      // a ledger migrated before the switch existed: nothing can be paused in it yet
      if (rs.next() && rs.getBoolean(1)) {
        return Optional.empty();
      }
    }
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT paused_at, paused_by, reason FROM streamform.effect_pause WHERE model = ?")) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new State(
                rs.getObject(1, OffsetDateTime.class).toInstant(),
                rs.getString(2),
                rs.getString(3)));
      }
    }
  }

  private static int inFlight(Connection c, String model) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT count(*) FROM streamform.effect WHERE model = ? AND state = 'DISPATCHING'")) {
      s.setString(1, model);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private static void history(
      Connection c, String model, String action, String by, @Nullable String reason)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO streamform.effect_pause_history (model, action, actor, reason) VALUES"
                + " (?, ?, ?, ?)")) {
      s.setString(1, model);
      s.setString(2, action);
      s.setString(3, by);
      s.setString(4, reason);
      s.executeUpdate();
    }
  }
}
