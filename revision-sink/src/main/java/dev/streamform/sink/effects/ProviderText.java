package dev.streamform.sink.effects;

/**
 * A provider's text — a receipt, an error body, a receipt query's answer — made storable before the
 * dispatcher writes it to the effect ledger (ADR 0184). The text is the provider's, not ours:
 * PostgreSQL refuses a NUL (0x00) in text ("invalid byte sequence for encoding UTF8: 0x00"), and a
 * refused outcome write was kept and tried again on every pass, claiming nothing new — one bad
 * answer stalled the whole model, and the cause was never printed. So a NUL, and a lone UTF-16
 * surrogate (no UTF-8 encoding exists for one), is written as a visible escape ({@code \u0000}),
 * and a text longer than {@link #MAXIMUM} characters is cut there, saying so and how long it was.
 * Everything else is kept as the provider sent it: {@code effects show} escapes what would not
 * print (docs/semantics.md §10: the receipt is the provider's word, kept for a person).
 */
final class ProviderText {
  private ProviderText() {}

  /**
   * The most characters (Unicode code points) of a provider's text the ledger keeps: a receipt is
   * an id or a small document; 4,096 characters keep any such whole and a mistaken 5 MB body out of
   * every {@code effects show}.
   */
  static final int MAXIMUM = 4096;

  /**
   * {@code text} as the ledger can store it: NULs and lone surrogates escaped, cut past MAXIMUM.
   */
  static String storable(String text) {
    int characters = text.codePointCount(0, text.length());
    int end = characters <= MAXIMUM ? text.length() : text.offsetByCodePoints(0, MAXIMUM);
    StringBuilder out = null;
    for (int i = 0; i < end; ) {
      int c = text.codePointAt(i);
      int width = Character.charCount(c);
      boolean bad = c == 0 || (width == 1 && Character.isSurrogate((char) c));
      if (bad && out == null) {
        out = new StringBuilder(end + 16).append(text, 0, i);
      }
      if (bad) {
        out.append(String.format("\\u%04x", c));
      } else if (out != null) {
        out.appendCodePoint(c);
      }
      i += width;
    }
    String kept = out != null ? out.toString() : text.substring(0, end);
    return characters <= MAXIMUM
        ? kept
        : kept
            + "… (cut: the provider's answer had "
            + characters
            + " characters; the first "
            + MAXIMUM
            + " are kept)";
  }

  /** {@code d} with its text storable. */
  static EffectProvider.Delivery storable(EffectProvider.Delivery d) {
    if (d instanceof EffectProvider.Applied a) {
      return a.receipt() == null ? a : new EffectProvider.Applied(storable(a.receipt()));
    }
    if (d instanceof EffectProvider.NotSent n) {
      return new EffectProvider.NotSent(storable(n.reason()));
    }
    EffectProvider.Unknown u = (EffectProvider.Unknown) d;
    return new EffectProvider.Unknown(storable(u.reason()), u.answered());
  }

  /** {@code l} with its text storable. */
  static EffectProvider.Lookup storable(EffectProvider.Lookup l) {
    if (l instanceof EffectProvider.Found f) {
      return f.receipt() == null ? f : new EffectProvider.Found(storable(f.receipt()));
    }
    if (l instanceof EffectProvider.Unanswered u) {
      return new EffectProvider.Unanswered(storable(u.reason()));
    }
    return l;
  }
}
