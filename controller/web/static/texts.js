// The page's constants and its own texts in English and French (TEXTS), the reader's language, and
// the words it needs (loaded first: every other script uses them). No framework, no build step.
"use strict";

const $ = (selector) => document.querySelector(selector);
const COLORS = ["red", "yellow", "green", "blue"];
const CODE_KEY = "card-launcher-join-code";
const LANG_KEY = "card-launcher-lang";
const LANGS = ["en", "fr"];

// The page's own texts in each language: labels of index.html (by data-i18n key) and the sentences
// this script builds from the game's status. Texts launcherd says (messages, refusals, advice) come
// from launcher-web already in the reader's language (docs/web.md).
const TEXTS = {
  en: {
    title: "Card launcher: the table", heading: "Card launcher", language: "Language", connecting: "⟳ connecting…",
    tableView: "Table display", phoneView: "Phone view", dismiss: "Dismiss", repair: "Repair the game log",
    launcher: "Launcher", hopperCards: "Cards now in the hopper", reloaded: "Reloaded", goOn: "Go on", resetLauncher: "Reset", players: "Players",
    player: "Player", owes: "Owes", cards: "Taken", presses: "Presses", handCol: "Hand", insertsCol: "Inserts", score: "Score", play: "Play",
    joinCode: "Join code", joinFold: "Join: the code, the QR code for a phone", codeDigits: "8 digits", useCode: "Use code",
    firstAttack: "Name the colour and the player to attack", lastCard: "it is the player's last card",
    pressSim: "Press the button (simulation)", uno: "Uno!", hintPenalty: "Advice penalty…", undo: "Undo last action",
    endRound: "End of round: enter the hands", winner: "Winner", handsHelp: (cards) => `For each player, tap + card for every card left in the hand, or type the cards (${cards}) or their points (37).`,
    scoreRound: "Score the round", scores: "Scores", csv: "Download the scores (CSV)", stats: "Match statistics",
    newGame: "New game", moreSettings: "Settings: the rules' options, scoring, target", newPlayers: "Players, in seat order (clockwise), separated by commas", rules: "Rules",
    scoring: "Scoring", target: "Target", force: "set the running match aside (it stays resumable)", start: "Start the game",
    happened: "What happened", join: "Join from a phone", qrShow: "Show the QR code (needs the join code)",
    qrAlt: "QR code of this page's address with the join code", cancel: "Cancel",
    live: "● live", reconnectingLauncher: "⟳ reconnecting to the launcher…", reconnectingWeb: "⟳ reconnecting to launcher-web…",
    notReachable: "⟳ not reachable: the launcher is restarting; this page catches up by itself",
    untilCards: "until cards", uno_reason: "Uno penalty", hint_reason: "advice penalty",
    firstCard: "the card turned up", lastCardAttack: "last-card attack: those cards count in the score",
    damage: (what, todo) => `⚠ game log: ${what} · what to do: ${todo}`,
    gameStarting: (why) => `… the game is starting${why ? `: ${why}` : ""}`,
    gameDown: (why) => `⚠ the game is not available${why ? `: ${why}` : ""}; the launcher still works`,
    noGame: "No game", startOne: "start one under New game",
    roundLine: (round, ruleset, dealer) => `Round ${round} · ${ruleset} · dealer ${dealer}`,
    clockwise: "↻ play goes clockwise", counterclockwise: "↺ play goes counterclockwise", and: " and ",
    winsMatch: "wins the match", pressesUntil: "presses until cards come out", owesPresses: (n) => `owes ${count(n, "press")}`,
    orStacks: " or stacks a Hit card", wonRound: (winner, round) => `${winner} won round ${round}`,
    enterHands: "enter the hands under End of round", namesAttack: "names a colour and a player to attack",
    playsOrPresses: "plays a card or presses",
    chain: (c) => `⚡ Mega Hit: ${count(c.hits, "hit")} on ${c.target} (started by ${c.started_by}, ${count(c.stacks, "card")} stacked on it)`,
    chainOpen: (c) => `⚡ Mega Hit open: ${c.target} presses ${c.hits} or stacks a Hit card`,
    catchable: (p) => `${p} did not call Uno: on their last card, catch them below`,
    noPress: "No press yet", took: (p, n) => `${p} took ${count(n, "card")}`, pressedNothing: (p) => `${p} pressed: nothing came out`,
    hopperUnknown: "hopper: unknown", holds: (n) => `the launcher holds about ${count(n, "card")}`,
    reloadNow: "⚠ Reload: shuffle the discard pile (all but its top card) into the hopper",
    catchButton: (p) => `Catch ${p} (no Uno)`, hand: (n) => `${n}'s hand, the cards left: `, handPlaceholder: (cards) => `e.g. ${cards}, or 37`,
    noMatch: "no match yet", scoresLine: (s, t) => `${s} scoring, target ${t}`, next: (r, d) => ` · next: round ${r}, dealer ${d}`,
    round: "Round", total: "Total", matchWinner: (w) => `★ Winner: ${w}`,
    cardsTaken: "Cards taken", biggestBurst: "Biggest burst", dryStreak: "Longest dry streak", hitsSent: "Hits sent",
    hitsReceived: "Hits received", roundsWon: "Rounds won", matches: "Matches", matchesWon: "Matches won",
    statsUnavailable: (e) => `statistics unavailable: ${e}`, match: (id) => `Match ${id}`,
    burstFact: (p, n) => `Biggest burst: ${p}, ${count(n, "card")}`, dryFact: (p, n) => `Longest dry streak: ${p}, ${count(n, "press")}`,
    megaFact: (c) => `Longest Mega Hit: ${count(c.hits, "hit")} in ${count(c.cards, "card")}, started by ${c.started_by}, pressed by ${c.pressed_by}`,
    minutesPerRound: "Minutes per round", secondsPerRound: "Seconds per round", roundN: (r) => `Round ${r}`,
    allMatches: (m, r) => `All matches: ${m}, rounds: ${r}`, whichColour: (card) => `${card}: which colour?`,
    whichPlayer: (card) => `${card}: which player?`, whoUno: "Who calls Uno?", whoAdvice: "Who gave advice?",
    firstAttackColour: "The turned-up Wild Attack-Attack: which colour?", whoAttacked: "Which player is attacked?",
    codeAccepted: "✔ code accepted", wrongCode: "✖ wrong code", refused: (m) => `✖ Refused: ${m}`,
    codeChanged: "The table's join code changed: enter the new one", box2023: " (the 2023 box)",
    press: ["press", "presses"], card: ["card", "cards"], hit: ["hit", "hits"],
    // The "what now" of each moment, and the controls it offers (issue #24).
    reloadSummary: "Reload the hopper", proposed: (n) => `The game proposes ${count(n, "card")}: the deck less the hands and the pile's top card.`,
    setAside: "Matches set aside", resume: "Resume", abandon: "Set this match aside", abandonSure: "Set this match aside? It stays resumable.",
    yesAbandon: "Yes, set it aside", matchEntry: (m) => `Match ${m.id} · ${(TEXTS.en.rulesetName)[m.rules] || m.rules} · ${m.players.join(", ")} · ${count(m.rounds || 0, "rounds")}`,
    draw: "Draw a card", pass: "Keep it, pass", accept: (p) => `${p} accepts 4 cards`, challenge: (p, who) => `${p} challenges ${who}`,
    legal: (p) => `The Wild Draw Four was legal (${p} takes 6)`, illegal: (who) => `It was illegal (${who} takes 4)`,
    minionsHelp: "Wild Mega Minions Power: how many cards did each player discard?", minionsGo: "Deal the Minions' cards",
    turnUp: "Turn up the first card (the launcher deals it)", turnUpByHand: "Say which card was turned up first", whichFirst: "Which card was turned up?", told: "Say which card it is",
    insertSafe: (p) => `${p} inserted: safe`, insertBlast: (p) => `${p} inserted: it blasted`, howMany: "How many cards came out?",
    slot: (n, full) => `slot ${n}: ${full ? "card in" : "empty"}`, blasterLast: (last) => last.outcome === "blast" ? `the blaster: a card in slot ${last.slot}, it blasted ${count(last.cards || 0, "card")}` : `the blaster: a card in slot ${last.slot}, safe`,
    nowDealer: (p) => `${p}: play a card, or draw one`, nowDrawn: (p) => `${p}: play the card drawn, or pass`,
    nowChallenge: (p, who) => `${p}: accept 4 cards, or challenge ${who}`, nowResult: (p, who) => `${who} shows the hand to ${p}: was the Wild Draw Four legal?`,
    nowMinions: (p) => `${p}: Wild Mega Minions, enter what each other player discarded`, nowDealt: (n) => `is dealt ${count(n, "card")} by the launcher`,
    nowTurnUp: "turn up the first card, or play a card", nowBlast: (p) => `${p}: play a card, or insert one in the blaster`,
    nowInserts: (n) => n === null ? "inserts until the blast" : `inserts ${n}`, nowWait: "wait: the launcher is dealing",
    nowNoGame: "start a game: New game is just below", colourNamed: (c) => `colour named: ${c}`, colourPile: (c) => `colour: ${c}`, said: (m) => `✔ ${m}`,
    tableNeedsCode: "Enter the join code once (Phone view, then Join code): this display then shows it with its QR code.",
    done: "✔ done", doneWord: "done", pressed: "the button was pressed", pressedCards: (n) => `the button was pressed: ${n ? `${count(n, "card")} came out` : "nothing came out"}`, reloadedCards: (n) => `Reloaded: ${count(n, "card")}`,
    chainOver: (first, itself, turn) => `⚡ Mega Hit over: play resumes ${itself ? "with the first attacker" : "after the first attacker"}, ${first}: ${turn} plays`, addCard: "+ card", clearHand: "clear", whichCard: (n) => `${n}: which card?`,
    rounds: ["round", "rounds"],
    // Issue #40: the hands, the first game's steps, the reload the deal needs, Blast without a blaster.
    joinHelp: "Every action needs the table's join code (8 digits): it is on the table display, in the demo's terminal, or ask the launcher: launcherctl game code.",
    needCode: "First enter the table's join code (Join code, at the top): it is on the table display, in the demo's terminal, or from launcherctl game code.",
    handTitle: "cards in hand, as the game counts them (a range when it cannot know exactly)", takenTitle: "cards taken from the launcher",
    steps: ["Join: enter the table's join code", "New game: the players and the rules", "Load the cards", "Play: the first move"],
    nowJoinFirst: "enter the table's join code just below, then start a game under New game",
    reloadDeal: (n) => n ? `⚠ Load the other ${count(n, "card")} into the launcher, then tap Reloaded (${count(n, "card")})` : "⚠ Load the rest of the deck into the launcher, then say how many cards it holds and tap Reloaded",
    nowReload: (n) => n ? `⚠ Load ${count(n, "card")} into the launcher and reload the hopper ↓` : "⚠ Reload the hopper ↓",
    blaster: "Blaster", blasterTable: "No blaster fitted: the table says each insertion with the buttons above.",
    blasterCards: (n) => `cards in the blaster's slots: ${n} of 4 (the last empty slot always fires)`,
    scoringName: { standard: "Standard", lowest: "Fewest points win", elimination: "Elimination" },
    scoringDoc: { standard: "The round's winner scores the points left in the other players' hands; the first to reach the target wins.",
      lowest: "Each player scores the points left in their own hand; once anyone reaches the target, the fewest points win.",
      elimination: "Whoever reaches the target leaves the table, until two remain; their next round decides the match." },
    optionsHelp: "Options", rulesetDoc: {
      "attack-mega-hit": "UNO Attack Mega Hit (2023): Hit cards make the next player press the launcher's button.",
      "attack-2005": "UNO Attack (2005): the first box, with Hit and Hit-Fire cards.",
      "attack-2010": "UNO Attack (2010): the second box, with Wild Attack-Attack.",
      classic: "Classic UNO: the launcher deals every card, one at a time.",
      "despicable-me-4": "UNO Despicable Me 4: classic UNO with Minions colours and Wild Mega Minions Power.",
      blast: "UNO Blast: cards go into the blaster, which fires now and then.",
    },
    rulesetName: { "attack-mega-hit": "UNO Attack Mega Hit", "attack-2005": "UNO Attack (2005)", "attack-2010": "UNO Attack (2010)",
      classic: "Classic UNO", "despicable-me-4": "UNO Despicable Me 4", blast: "UNO Blast" },
    options: {
      early_stop: ["Stop pressing once cards come out", { true: "yes", false: "no: press every time owed" },
        "yes: a player told to press several times stops at the first press that gives cards; no: every press owed is pressed."],
      resume: ["After a Mega Hit chain, play goes on with", { after_first_attacker: "the one after the first attacker", first_attacker: "the first attacker" },
        "Who plays next once a Mega Hit chain is over."],
      deal_pause_s: ["Seconds between two players' piles", null, "When dealing, the launcher waits this long before the next player's cards."],
      deal_pause: ["Between two players' piles, wait for", { timer: "the seconds above", press: "a press of the button" },
        "How the launcher knows the next player is ready for their cards."],
      last_card_draws: ["A last card Draw Two / Wild Draw Four still deals", { true: "yes, and they count", false: "no, the round ends" },
        "Whether a round won on a Draw card still makes the next player take the cards."],
    },
  },
  fr: {
    title: "Lanceur de cartes : la table", heading: "Lanceur de cartes", language: "Langue", connecting: "⟳ connexion…",
    tableView: "Affichage table", phoneView: "Vue téléphone", dismiss: "Fermer", repair: "Réparer le journal de partie",
    launcher: "Lanceur", hopperCards: "Cartes dans le réservoir", reloaded: "Rechargé", goOn: "Continuer", resetLauncher: "Réinitialiser", players: "Joueurs",
    player: "Joueur", owes: "Doit", cards: "Prises", presses: "Appuis", handCol: "Main", insertsCol: "Insertions", score: "Score", play: "Jouer",
    joinCode: "Code de la table", joinFold: "Rejoindre : le code, le QR code pour un téléphone", codeDigits: "8 chiffres", useCode: "Valider le code",
    firstAttack: "Nommer la couleur et le joueur à attaquer", lastCard: "c'est la dernière carte du joueur",
    pressSim: "Appuyer sur le bouton (simulation)", uno: "Uno !", hintPenalty: "Pénalité de conseil…",
    undo: "Annuler la dernière action", endRound: "Fin de manche : saisir les mains", winner: "Gagnant",
    handsHelp: (cards) => `Pour chaque joueur, touchez + carte pour chaque carte restée en main, ou tapez les cartes (${cards}) ou leurs points (37).`,
    scoreRound: "Compter la manche", scores: "Scores", csv: "Télécharger les scores (CSV)", stats: "Statistiques de la partie",
    newGame: "Nouvelle partie", moreSettings: "Réglages : options des règles, décompte, objectif", newPlayers: "Joueurs, dans l'ordre des places (sens horaire), séparés par des virgules",
    rules: "Règles", scoring: "Décompte", target: "Objectif", force: "mettre de côté la partie en cours (elle pourra reprendre)",
    start: "Lancer la partie", happened: "Ce qui s'est passé", join: "Rejoindre depuis un téléphone",
    qrShow: "Afficher le QR code (demande le code de la table)", qrAlt: "QR code de l'adresse de cette page avec le code de la table",
    cancel: "Annuler", live: "● en direct", reconnectingLauncher: "⟳ reconnexion au lanceur…",
    reconnectingWeb: "⟳ reconnexion à launcher-web…",
    notReachable: "⟳ injoignable : le lanceur redémarre ; cette page se remet à jour d'elle-même",
    untilCards: "jusqu'aux cartes", uno_reason: "pénalité Uno", hint_reason: "pénalité de conseil",
    firstCard: "la carte retournée", lastCardAttack: "attaque sur la dernière carte : ces cartes comptent dans le score",
    damage: (what, todo) => `⚠ journal de partie : ${what} · que faire : ${todo}`,
    gameStarting: (why) => `… le jeu démarre${why ? ` : ${why}` : ""}`,
    gameDown: (why) => `⚠ le jeu n'est pas disponible${why ? ` : ${why}` : ""} ; le lanceur fonctionne toujours`,
    noGame: "Pas de partie", startOne: "lancez-en une sous Nouvelle partie",
    roundLine: (round, ruleset, dealer) => `Manche ${round} · ${ruleset} · ${dealer} distribue`,
    clockwise: "↻ le jeu tourne dans le sens horaire",
    counterclockwise: "↺ le jeu tourne dans le sens antihoraire", and: " et ",
    winsMatch: "gagne la partie", pressesUntil: "appuie jusqu'à ce que des cartes sortent",
    owesPresses: (n) => `doit ${count(n, "press")}`, orStacks: " ou pose une carte Appuyer",
    wonRound: (winner, round) => `${winner} a gagné la manche ${round}`, enterHands: "saisissez les mains sous Fin de manche",
    namesAttack: "nomme une couleur et un joueur à attaquer", playsOrPresses: "joue une carte ou appuie",
    chain: (c) => `⚡ Méga appuyer : ${count(c.hits, "hit")} sur ${c.target} (lancé par ${c.started_by}, ${count(c.stacks, "card")} posée${c.stacks > 1 ? "s" : ""} dessus)`,
    chainOpen: (c) => `⚡ Méga appuyer ouvert : ${c.target} appuie ${c.hits} fois ou pose une carte Appuyer`,
    catchable: (p) => `${p} n'a pas dit Uno : sur sa dernière carte, attrapez ce joueur ci-dessous`,
    noPress: "Pas encore d'appui", took: (p, n) => `${p} a pris ${count(n, "card")}`,
    pressedNothing: (p) => `${p} a appuyé : rien n'est sorti`, hopperUnknown: "réservoir : inconnu",
    holds: (n) => `le lanceur contient environ ${count(n, "card")}`,
    reloadNow: "⚠ Rechargez : mélangez la défausse (sauf sa carte du dessus) dans le réservoir",
    catchButton: (p) => `Attraper ${p} (pas de Uno)`, hand: (n) => `Main de ${n}, les cartes restées : `,
    handPlaceholder: (cards) => `ex. ${cards}, ou 37`,
    noMatch: "pas encore de partie", scoresLine: (s, t) => `décompte ${s}, objectif ${t}`,
    next: (r, d) => ` · ensuite : manche ${r}, ${d} distribue`, round: "Manche", total: "Total",
    matchWinner: (w) => `★ Gagnant : ${w}`, cardsTaken: "Cartes prises", biggestBurst: "Plus grosse rafale",
    dryStreak: "Plus longue série à vide", hitsSent: "Appuis envoyés", hitsReceived: "Appuis reçus",
    roundsWon: "Manches gagnées", matches: "Parties", matchesWon: "Parties gagnées",
    statsUnavailable: (e) => `statistiques indisponibles : ${e}`, match: (id) => `Partie ${id}`,
    burstFact: (p, n) => `Plus grosse rafale : ${p}, ${count(n, "card")}`,
    dryFact: (p, n) => `Plus longue série à vide : ${p}, ${count(n, "press")}`,
    megaFact: (c) => `Plus long Méga appuyer : ${count(c.hits, "hit")} en ${count(c.cards, "card")}, lancé par ${c.started_by}, encaissé par ${c.pressed_by}`,
    minutesPerRound: "Minutes par manche", secondsPerRound: "Secondes par manche", roundN: (r) => `Manche ${r}`,
    allMatches: (m, r) => `Toutes les parties : ${m}, manches : ${r}`, whichColour: (card) => `${card} : quelle couleur ?`,
    whichPlayer: (card) => `${card} : quel joueur ?`, whoUno: "Qui dit Uno ?", whoAdvice: "Qui a donné un conseil ?",
    firstAttackColour: "La Double attaque retournée : quelle couleur ?", whoAttacked: "Quel joueur est attaqué ?",
    codeAccepted: "✔ code accepté", wrongCode: "✖ mauvais code", refused: (m) => `✖ Refusé : ${m}`,
    codeChanged: "Le code de la table a changé : saisissez le nouveau", box2023: " (la boîte 2023)",
    press: ["appui", "appuis"], card: ["carte", "cartes"], hit: ["appui", "appuis"],
    reloadSummary: "Recharger le réservoir", proposed: (n) => `Le jeu propose ${count(n, "card")} : le paquet moins les mains et la carte du dessus de la défausse.`,
    setAside: "Parties mises de côté", resume: "Reprendre", abandon: "Mettre cette partie de côté", abandonSure: "Mettre cette partie de côté ? Elle pourra reprendre.",
    yesAbandon: "Oui, la mettre de côté", matchEntry: (m) => `Partie ${m.id} · ${(TEXTS.fr.rulesetName)[m.rules] || m.rules} · ${m.players.join(", ")} · ${count(m.rounds || 0, "rounds")}`,
    draw: "Piocher une carte", pass: "La garder, passer", accept: (p) => `${p} accepte 4 cartes`, challenge: (p, who) => `${p} conteste ${who}`,
    legal: (p) => `Le +4 était permis (${p} prend 6)`, illegal: (who) => `Il ne l'était pas (${who} prend 4)`,
    minionsHelp: "Super Minions : combien de cartes chaque joueur a-t-il défaussées ?", minionsGo: "Distribuer les cartes des Minions",
    turnUp: "Retourner la première carte (le lanceur la donne)", turnUpByHand: "Dire quelle carte a été retournée en premier", whichFirst: "Quelle carte a été retournée ?", told: "Dire quelle carte c'est",
    insertSafe: (p) => `${p} a inséré : rien`, insertBlast: (p) => `${p} a inséré : ça a tiré`, howMany: "Combien de cartes sont sorties ?",
    slot: (n, full) => `fente ${n} : ${full ? "carte dedans" : "vide"}`, blasterLast: (last) => last.outcome === "blast" ? `le blaster : une carte dans la fente ${last.slot}, il a tiré ${count(last.cards || 0, "card")}` : `le blaster : une carte dans la fente ${last.slot}, rien`,
    nowDealer: (p) => `${p} : jouer une carte, ou en piocher une`, nowDrawn: (p) => `${p} : jouer la carte piochée, ou passer`,
    nowChallenge: (p, who) => `${p} : accepter 4 cartes, ou contester ${who}`, nowResult: (p, who) => `${who} montre sa main à ${p} : le +4 était-il permis ?`,
    nowMinions: (p) => `${p} : Super Minions, saisir ce que chaque autre joueur a défaussé`, nowDealt: (n) => `reçoit ${count(n, "card")} du lanceur`,
    nowTurnUp: "retourner la première carte, ou jouer une carte", nowBlast: (p) => `${p} : jouer une carte, ou en insérer une dans le blaster`,
    nowInserts: (n) => n === null ? "insère jusqu'au tir" : `insère ${n} fois`, nowWait: "attendez : le lanceur distribue",
    nowNoGame: "lancez une partie : Nouvelle partie est juste en dessous", colourNamed: (c) => `couleur demandée : ${c}`, colourPile: (c) => `couleur : ${c}`, said: (m) => `✔ ${m}`,
    tableNeedsCode: "Saisissez le code de la table une fois (Vue téléphone, puis Code de la table) : cet affichage le montre alors avec son QR code.",
    done: "✔ fait", doneWord: "fait", pressed: "le bouton a été pressé", pressedCards: (n) => `le bouton a été pressé : ${n ? `${count(n, "card")} ${n > 1 ? "sont sorties" : "est sortie"}` : "rien n'est sorti"}`, reloadedCards: (n) => `Rechargé : ${count(n, "card")}`,
    chainOver: (first, itself, turn) => `⚡ Méga appuyer fini : le jeu reprend ${itself ? "avec le premier attaquant" : "après le premier attaquant"}, ${first} : ${turn} joue`, addCard: "+ carte", clearHand: "effacer", whichCard: (n) => `${n} : quelle carte ?`,
    rounds: ["manche", "manches"],
    joinHelp: "Chaque action demande le code de la table (8 chiffres) : il est sur l'affichage de la table, dans le terminal de la démo, ou demandez-le au lanceur : launcherctl game code.",
    needCode: "Saisissez d'abord le code de la table (Code de la table, en haut) : il est sur l'affichage de la table, dans le terminal de la démo, ou donné par launcherctl game code.",
    handTitle: "cartes en main, comptées par le jeu (une fourchette quand il ne peut pas savoir)", takenTitle: "cartes prises du lanceur",
    steps: ["Rejoindre : saisir le code de la table", "Nouvelle partie : les joueurs et les règles", "Charger les cartes", "Jouer : le premier coup"],
    nowJoinFirst: "saisissez le code de la table juste en dessous, puis lancez une partie sous Nouvelle partie",
    reloadDeal: (n) => n ? `⚠ Chargez les ${count(n, "card")} restantes dans le lanceur, puis touchez Rechargé (${count(n, "card")})` : "⚠ Chargez le reste du paquet dans le lanceur, puis dites combien il en contient et touchez Rechargé",
    nowReload: (n) => n ? `⚠ Chargez ${count(n, "card")} dans le lanceur et rechargez le réservoir ↓` : "⚠ Rechargez le réservoir ↓",
    blaster: "Blaster", blasterTable: "Pas de blaster : la table dit chaque insertion avec les boutons plus haut.",
    blasterCards: (n) => `cartes dans les fentes du blaster : ${n} sur 4 (la dernière fente vide tire toujours)`,
    scoringName: { standard: "Standard", lowest: "Le moins de points gagne", elimination: "Élimination" },
    scoringDoc: { standard: "Le gagnant de la manche marque les points restés dans les mains des autres ; le premier à l'objectif gagne.",
      lowest: "Chacun marque les points restés dans sa propre main ; dès que quelqu'un atteint l'objectif, le moins de points gagne.",
      elimination: "Qui atteint l'objectif quitte la table, jusqu'à ce qu'il en reste deux ; leur manche suivante décide de la partie." },
    optionsHelp: "Options", rulesetDoc: {
      "attack-mega-hit": "UNO Attack Mega Hit (2023) : les cartes Appuyer font appuyer le joueur suivant sur le bouton du lanceur.",
      "attack-2005": "UNO Attack (2005) : la première boîte, avec les cartes Appuyer et Appuyer jusqu'au tir.",
      "attack-2010": "UNO Attack (2010) : la deuxième boîte, avec la Double attaque.",
      classic: "UNO classique : le lanceur distribue chaque carte, une à une.",
      "despicable-me-4": "UNO Moi, moche et méchant 4 : UNO classique aux couleurs des Minions, avec la carte Super Minions.",
      blast: "UNO Blast : les cartes vont dans le blaster, qui tire de temps en temps.",
    },
    rulesetName: { "attack-mega-hit": "UNO Attack Mega Hit", "attack-2005": "UNO Attack (2005)", "attack-2010": "UNO Attack (2010)",
      classic: "UNO classique", "despicable-me-4": "UNO Moi, moche et méchant 4", blast: "UNO Blast" },
    options: {
      early_stop: ["Arrêter d'appuyer dès que des cartes sortent", { true: "oui", false: "non : appuyer autant que dû" },
        "oui : un joueur qui doit appuyer plusieurs fois s'arrête au premier appui qui donne des cartes ; non : il appuie autant que dû."],
      resume: ["Après un Méga appuyer, le jeu reprend avec", { after_first_attacker: "celui après le premier attaquant", first_attacker: "le premier attaquant" },
        "Qui joue une fois la chaîne de Méga appuyer finie."],
      deal_pause_s: ["Secondes entre les piles de deux joueurs", null, "En distribuant, le lanceur attend autant avant les cartes du joueur suivant."],
      deal_pause: ["Entre les piles de deux joueurs, attendre", { timer: "les secondes ci-dessus", press: "un appui sur le bouton" },
        "Comment le lanceur sait que le joueur suivant est prêt pour ses cartes."],
      last_card_draws: ["Un +2 / +4 en dernière carte fait encore prendre les cartes", { true: "oui, et elles comptent", false: "non, la manche finit" },
        "Si une manche gagnée sur un +2 ou un +4 fait quand même prendre les cartes au joueur suivant."],
    },
  },
};

let lang = "en";        // the language the page is shown in
let words = null;       // GET /api/words: card and colour names in that language

// The reader's own choice, if any: it goes with every request; without it the browser's
// Accept-Language does, and launcher-web answers in the language it chose (state.lang).
function chosenLang() {
  const chosen = localStorage.getItem(LANG_KEY);
  return LANGS.includes(chosen) ? chosen : null;
}

function browserLang() {
  const found = (navigator.languages || [navigator.language]).map((l) => String(l).slice(0, 2)).find((l) => LANGS.includes(l));
  return found || "en";
}

function t(key, ...args) {
  const text = TEXTS[lang][key] ?? TEXTS.en[key];
  return typeof text === "function" ? text(...args) : text;
}

// The labels of index.html, the switch and the names of cards and colours in the page's language.
async function showLanguage(wanted, draw = true) {
  lang = wanted;
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const attribute of ["placeholder", "aria-label", "alt"]) {
    for (const node of document.querySelectorAll(`[data-i18n-${attribute}]`)) {
      node.setAttribute(attribute, t(node.getAttribute(`data-i18n-${attribute}`)));
    }
  }
  for (const button of document.querySelectorAll(".langs button")) button.setAttribute("aria-pressed", String(button.dataset.lang === lang));
  if ($("#link").classList.contains("up")) $("#link").textContent = t("live");  // said before the switch
  try { words = await api("GET", `/api/words?lang=${lang}`); } catch (error) { words = null; }
  if (state && draw) render();
}

// "1 press", "2 presses"; French keeps the singular for 0 and 1.
function count(n, key) {
  const [one, many] = t(key);
  return `${n} ${(lang === "fr" ? n <= 1 : n === 1) ? one : many}`;
}
