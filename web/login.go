package web

import (
	"html/template"
	"net/http"
	"time"
)

var loginTemplate = template.Must(template.ParseFS(assetFS, "assets/login.html"))

// failedLoginDelay slows each failed login down, against guessing.
const failedLoginDelay = 300 * time.Millisecond

// loginPage serves the login form, with a fresh login token in a cookie
// and in the form.
func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	c.renderLogin(w, r, "", http.StatusOK)
}

func (c *Console) renderLogin(w http.ResponseWriter, r *http.Request, msg string, status int) {
	token := newToken()
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: token, Path: "/login", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: c.secure, MaxAge: 3600})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	loginTemplate.Execute(w, struct {
		Token, Error, User string
	}{token, msg, r.PostFormValue("user")})
}

// login checks the form's account and password and starts a session.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	ck, err := r.Cookie(loginCookie)
	if err != nil || !tokensEqual(r.PostFormValue("token"), ck.Value) || !sameOrigin(r) {
		c.renderLogin(w, r, "The login form expired or came from another site: log in again.", http.StatusForbidden)
		return
	}
	user := r.PostFormValue("user")
	acct, ok := checkLogin(c.users, user, r.PostFormValue("password"), clientHost(r), c.secure)
	if !ok {
		c.log.Info("web console login refused", "user", user, "host", clientHost(r))
		time.Sleep(failedLoginDelay)
		c.renderLogin(w, r, "Access denied for user '"+user+"': check the user name and the password.", http.StatusUnauthorized)
		return
	}
	token, _ := c.sessions.add(acct)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: c.secure})
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: "", Path: "/login", MaxAge: -1})
	c.log.Debug("web console login", "user", acct.User, "host", acct.Host)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// logout ends the session.
func (c *Console) logout(w http.ResponseWriter, r *http.Request, ws *webSession) {
	if ck, err := r.Cookie(sessionCookie); err == nil {
		c.sessions.remove(ck.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: c.secure})
	writeJSON(w, map[string]bool{"ok": true})
}
