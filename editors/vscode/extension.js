// The rulesdsl extension: highlighting comes from syntaxes/ (package.json); this starts the
// language server, `rulesdsl lsp`, over stdio for every .rules file.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("rulesdsl").get("server.command");
  client = new LanguageClient(
    "rulesdsl",
    "rulesdsl",
    { command, args },
    { documentSelector: [{ language: "rulesdsl" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
