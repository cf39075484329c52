package dev.streamform.policies.sql;

import com.google.auto.value.AutoValue;
import java.util.Optional;

/** One item of a model's SELECT list: a key column or an aggregate with its alias. */
@AutoValue
public abstract class OutputColumn {

  /** Whether a select item is a GROUP BY column or an aggregate. */
  public enum Kind {
    KEY,
    AGGREGATE
  }

  /** The aggregate functions a model may use. */
  public enum Function {
    SUM,
    COUNT,
    MIN,
    MAX,
    AVG
  }

  /** The output name: the column name for a key (or its alias), the alias for an aggregate. */
  public abstract String name();

  public abstract Kind kind();

  /** The aggregate function; empty for a key column. */
  public abstract Optional<Function> function();

  /**
   * The column the item reads: the key column itself, or the aggregate's argument (empty for {@code
   * COUNT(*)}).
   */
  public abstract Optional<String> argument();

  /** True when an aggregate was written without {@code AS <name>} (its name is then generated). */
  public abstract boolean aliasMissing();

  /** 1-based line of the item in the model's SQL text. */
  public abstract int line();

  /** 1-based column of the item in the model's SQL text. */
  public abstract int column();

  public static OutputColumn key(String name, String column, int line, int col) {
    return new AutoValue_OutputColumn(
        name, Kind.KEY, Optional.empty(), Optional.of(column), false, line, col);
  }

  public static OutputColumn aggregate(
      String name,
      Function function,
      Optional<String> argument,
      boolean aliasMissing,
      int line,
      int col) {
    return new AutoValue_OutputColumn(
        name, Kind.AGGREGATE, Optional.of(function), argument, aliasMissing, line, col);
  }

  /** The item as SQL, e.g. {@code SUM(amount) AS total_spend}. */
  public String toSql() {
    String name = Names.quoteIfNeeded(name());
    if (kind() == Kind.KEY) {
      String column = Names.quoteIfNeeded(argument().get());
      return argument().get().equals(name()) ? column : column + " AS " + name;
    }
    String call = function().get() + "(" + argument().map(Names::quoteIfNeeded).orElse("*") + ")";
    return aliasMissing() ? call : call + " AS " + name;
  }
}
