-- The decision ledger is append-only against TRUNCATE too (docs/semantics.md §11), as the
-- correction ledger is (V1, correction_ledger_no_truncate): the row trigger decision_append_only
-- (V90) does not fire for TRUNCATE, which empties the table at once.
CREATE FUNCTION refuse_decision_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'streamform.decision is append-only: % refused', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER decision_no_truncate
  BEFORE TRUNCATE ON decision
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_decision_truncate();
