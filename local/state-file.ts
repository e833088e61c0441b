/** Where `npm start` records the running local stack, so the admin CLI can find its DynamoDB and tables. */
export const LOCAL_STATE_DIR = '.local';
export const LOCAL_STATE_FILE = `${LOCAL_STATE_DIR}/stack.json`;
