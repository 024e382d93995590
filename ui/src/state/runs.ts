// The runs of the history as History and Compare list them: the filter, the rows Rust
// returns for it, and the environments to filter by.
import { useCallback, useEffect, useState } from "react";
import { commands, type RunFilter, type RunRow } from "../bindings";
import { call, message } from "../api";

export const NO_FILTER: RunFilter = { env: null, state: null, from_day: null, to_day: null };

export function useRunList() {
  const [filter, setFilter] = useState<RunFilter>(NO_FILTER);
  const [rows, setRows] = useState<RunRow[]>([]);
  const [envs, setEnvs] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      setRows(await call(commands.listRuns(filter)));
      setError(null);
    } catch (e) {
      setError(message(e));
    }
  }, [filter]);
  useEffect(() => {
    void reload();
  }, [reload]);
  useEffect(() => {
    call(commands.listRuns(NO_FILTER))
      .then((all) => setEnvs([...new Set(all.map((r) => r.env))].sort()))
      .catch(() => {});
  }, []);

  return { filter, setFilter, rows, envs, error, setError, reload };
}
