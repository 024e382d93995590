// The plan form of the chosen environment, loaded from its profile the first time a
// screen needs it (Checks and Plan share it).
import { useEffect, useState } from "react";
import { commands, type RandChoice } from "../bindings";
import { call, message } from "../api";
import { useApp } from "./app";

export function usePlanForm() {
  const { env, form, setForm } = useApp();
  const [scenarios, setScenarios] = useState<string[]>([]);
  const [randTypes, setRandTypes] = useState<RandChoice[]>([]);
  const [clientsAvailable, setClientsAvailable] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!env) return;
    let live = true;
    call(commands.planDefaults(env))
      .then((setup) => {
        if (!live) return;
        setScenarios(setup.scenarios_available);
        setRandTypes(setup.rand_types);
        setClientsAvailable(setup.clients_available ?? []);
        if (!form) setForm(setup.form);
      })
      .catch((e) => live && setError(message(e)));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [env]);
  return { env, form, setForm, scenarios, randTypes, clientsAvailable, error };
}
