package dev.streamform.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Jackson's parse errors as a person reads them: the reason without the parser's {@code [Source:
 * ...]} location text (a position inside the reason is kept as {@code line L, column C}), and the
 * line and column where the parser stopped.
 */
final class JsonProblems {
  private JsonProblems() {}

  private static final Pattern SOURCE_LOCATION =
      Pattern.compile("\\[Source: [^\\]]*?line: (\\d+), column: (\\d+)\\]");

  /** The reason in plain words, one line, e.g. {@code Unexpected end-of-input: expected ...}. */
  static String reason(JsonProcessingException e) {
    String message = e.getOriginalMessage();
    if (message == null) {
      return "malformed JSON";
    }
    Matcher m = SOURCE_LOCATION.matcher(message);
    String plain = m.replaceAll("line $1, column $2");
    int newline = plain.indexOf('\n');
    plain = (newline < 0 ? plain : plain.substring(0, newline)).strip();
    // Jackson's own spelling of the end of the text, in words
    return plain.replace("Unexpected end-of-input", "the text ends too early");
  }

  /** {@code line:column} where the parser stopped, or {@code line} when it has no column. */
  static String position(JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    if (at == null || at.getLineNr() < 1) {
      return "1";
    }
    return at.getColumnNr() > 0 ? at.getLineNr() + ":" + at.getColumnNr() : "" + at.getLineNr();
  }
}
