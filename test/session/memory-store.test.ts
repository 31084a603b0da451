import { describeStoreContract } from "./store-contract.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";

describeStoreContract("in-memory", async () => ({ store: new InMemorySessionStore() }), { copiesOnAppend: false });
