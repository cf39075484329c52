package dev.streamform.sink.effects;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The effect rules the revision sink could not evaluate on a canonical revision ({@code
 * streamform.effect_rule_error}): values that do not compare, or a schema the writer did not know.
 * The sink recorded each and went on, leaving that window's effect as it was; until a person
 * resolves one, the effect ledger may not follow its rule, so {@code streamform effects verify}
 * counts each open one as a problem. Reads only.
 */
public final class EffectRuleErrors {
  private final DataSource dataSource;

  public EffectRuleErrors(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** One rule not evaluated on one revision; {@code resolved} once a person has set resolved_at. */
  public record RuleError(
      String effectType,
      String rule,
      String logicalWindowId,
      int generation,
      int revision,
      String error,
      boolean resolved) {
    /** {@code reward `revenue >= 1000` on window 1a2b3c4d5e6f g1 r2: <error>}. */
    public String line() {
      return effectType
          + " `"
          + rule
          + "` on window "
          + logicalWindowId.substring(0, 12)
          + " g"
          + generation
          + " r"
          + revision
          + ": "
          + error
          + (resolved ? " (resolved)" : "");
    }
  }

  /**
   * The model's recorded rule errors, oldest first; empty for a ledger migrated before they were
   * kept.
   */
  public List<RuleError> list(String model) throws SQLException {
    List<RuleError> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement s =
              c.prepareStatement("SELECT to_regclass('streamform.effect_rule_error') IS NOT NULL");
          ResultSet rs = s.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          return out;
        }
      }
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT effect_type, rule, logical_window_id, generation, revision, error,"
                  + " resolved_at FROM streamform.effect_rule_error WHERE model = ? ORDER BY"
                  + " recorded_at, rule_error_id")) {
        s.setString(1, model);
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            out.add(
                new RuleError(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getInt(4),
                    rs.getInt(5),
                    rs.getString(6),
                    rs.getObject(7, OffsetDateTime.class) != null));
          }
        }
      }
    }
    return out;
  }
}
