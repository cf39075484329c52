package dev.streamform.policies.sql;

/**
 * A model's SQL cannot be used: it does not parse, or it uses a construct Streamform does not
 * support. {@link #getMessage()} is a user-facing sentence naming the construct and how to fix it;
 * {@link #line()} and {@link #column()} point into the user's original text (1-based; 0 when
 * unknown).
 */
public final class SqlModelException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int line;
  private final int column;

  public SqlModelException(String message, int line, int column) {
    super(message);
    this.line = line;
    this.column = column;
  }

  public SqlModelException(String message, int line, int column, Throwable cause) {
    super(message, cause);
    this.line = line;
    this.column = column;
  }

  /** 1-based line in the model's SQL text; 0 when unknown. */
  public int line() {
    return line;
  }

  /** 1-based column in the model's SQL text; 0 when unknown. */
  public int column() {
    return column;
  }
}
