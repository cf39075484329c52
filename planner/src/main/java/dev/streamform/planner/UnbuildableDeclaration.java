package dev.streamform.planner;

/**
 * A declaration that {@code check} accepts but that cannot be built in this process — a scorer
 * class that is not on its class path, or cannot be made: the user's problem, said as {@code file:
 * model, key: what — fix} in one line by every command, never as an internal error.
 */
public final class UnbuildableDeclaration extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  UnbuildableDeclaration(String message) {
    super(message);
  }
}
